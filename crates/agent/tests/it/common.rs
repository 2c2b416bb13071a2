//! A script runner that really runs python3, skills with declared risk tiers, and helpers.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use async_trait::async_trait;
use serde_json::{Value, json};
use skillful_chat::OpenAiClient;
use skillful_core::{
    RiskTier, Skill, SkillDocument, SkillError, SkillFrontmatter, SkillOrigin, SkillResource,
    SkillScript, SkillsSource, SourceContext,
};
use skillful_discovery::{FileScriptRequest, FileScriptRunner, FileSkillsSource};
use skillful_provider::SkillsProvider;
use skillful_scripts::ProcessRunner;

pub(crate) const MARATHON: &str = "A marathon is 26.2 miles. How many kilometres is that?";

pub(crate) fn examples() -> PathBuf {
    PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../examples/skills"
    ))
}

/// The real process runner of `skillful-scripts`, counting the scripts it runs.
#[derive(Debug)]
pub(crate) struct CountingRunner {
    inner: ProcessRunner,
    runs: AtomicUsize,
}

impl Default for CountingRunner {
    fn default() -> Self {
        Self {
            inner: ProcessRunner::new(),
            runs: AtomicUsize::new(0),
        }
    }
}

impl CountingRunner {
    pub(crate) fn runs(&self) -> usize {
        self.runs.load(Ordering::SeqCst)
    }
}

#[async_trait]
impl FileScriptRunner for CountingRunner {
    async fn run(&self, request: FileScriptRequest) -> Result<String, SkillError> {
        self.runs.fetch_add(1, Ordering::SeqCst);
        self.inner.run(request).await
    }
}

/// A provider over `examples/skills` whose scripts run with `runner`.
pub(crate) fn example_provider(runner: Arc<CountingRunner>) -> Arc<SkillsProvider> {
    let source = FileSkillsSource::builder()
        .root(examples())
        .script_runner(runner)
        .build()
        .unwrap();
    Arc::new(SkillsProvider::new(Arc::new(source)))
}

pub(crate) fn client(url: &str) -> OpenAiClient {
    OpenAiClient::builder(url).max_retries(0).build().unwrap()
}

pub(crate) fn load_skill() -> Value {
    json!({"skillName": "unit-converter"})
}

pub(crate) fn read_table() -> Value {
    json!({"skillName": "unit-converter", "resourceName": "references/conversion-table.md"})
}

pub(crate) fn run_convert() -> Value {
    json!({"skillName": "unit-converter", "scriptName": "scripts/convert.py", "arguments": {"value": 26.2, "factor": 1.609344}})
}

/// A script that declares its risk tier and counts its runs.
#[derive(Debug)]
pub(crate) struct TieredScript {
    pub name: &'static str,
    pub tier: RiskTier,
    pub runs: AtomicUsize,
}

#[async_trait]
impl SkillScript for TieredScript {
    fn name(&self) -> &str {
        self.name
    }
    fn risk_tier(&self) -> RiskTier {
        self.tier
    }
    async fn run(&self, _arguments: Value) -> Result<String, SkillError> {
        self.runs.fetch_add(1, Ordering::SeqCst);
        Ok(format!("{} ran", self.name))
    }
}

/// A skill `ops` with a `read` script `status` and a `destructive` script `wipe`.
#[derive(Debug)]
pub(crate) struct OpsSkill {
    frontmatter: SkillFrontmatter,
    origin: SkillOrigin,
    pub scripts: Vec<Arc<TieredScript>>,
}

impl OpsSkill {
    pub(crate) fn new() -> Arc<Self> {
        let script = |name, tier| {
            Arc::new(TieredScript {
                name,
                tier,
                runs: AtomicUsize::new(0),
            })
        };
        Arc::new(Self {
            frontmatter: SkillFrontmatter::new("ops", "Checks and cleans the server."),
            origin: SkillOrigin::inline(),
            scripts: vec![
                script("status", RiskTier::Read),
                script("wipe", RiskTier::Destructive),
            ],
        })
    }
}

#[async_trait]
impl Skill for OpsSkill {
    fn frontmatter(&self) -> &SkillFrontmatter {
        &self.frontmatter
    }
    fn origin(&self) -> &SkillOrigin {
        &self.origin
    }
    async fn document(&self) -> Result<SkillDocument, SkillError> {
        Ok(SkillDocument::instructions(
            "Run `status` to check, `wipe` to clean.",
        ))
    }
    fn resources(&self) -> Vec<Arc<dyn SkillResource>> {
        Vec::new()
    }
    fn scripts(&self) -> Vec<Arc<dyn SkillScript>> {
        self.scripts
            .iter()
            .map(|script| Arc::clone(script) as Arc<dyn SkillScript>)
            .collect()
    }
}

#[derive(Debug)]
pub(crate) struct OpsSource(pub Arc<OpsSkill>);

#[async_trait]
impl SkillsSource for OpsSource {
    async fn skills(&self, _context: &SourceContext) -> Result<Vec<Arc<dyn Skill>>, SkillError> {
        Ok(vec![Arc::clone(&self.0) as Arc<dyn Skill>])
    }
}

/// A provider over one skill, `distance-converter` (miles and kilometres), whose
/// `metadata.anti-triggers` are `anti_triggers`; the directory goes with the provider's caller.
pub(crate) fn distance_converter(anti_triggers: &str) -> (tempfile::TempDir, Arc<SkillsProvider>) {
    let dir = tempfile::tempdir().unwrap();
    let skill = dir.path().join("distance-converter");
    std::fs::create_dir_all(&skill).unwrap();
    std::fs::write(
        skill.join("SKILL.md"),
        format!(
            "---\nname: distance-converter\ndescription: Converts distances between miles and \
             kilometres.\nmetadata:\n  anti-triggers: {anti_triggers}\n---\n# Distance converter\n"
        ),
    )
    .unwrap();
    let source = FileSkillsSource::builder()
        .root(dir.path())
        .build()
        .unwrap();
    (dir, Arc::new(SkillsProvider::new(Arc::new(source))))
}

/// The result of every tool call in `messages`, in order.
pub(crate) fn tool_results(messages: &[skillful_chat::Message]) -> Vec<String> {
    messages
        .iter()
        .flat_map(|message| &message.contents)
        .filter_map(|content| match content {
            skillful_chat::Content::FunctionResult(result) => Some(result.result.clone()),
            _ => None,
        })
        .collect()
}

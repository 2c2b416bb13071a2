//! The whole path through the facade over `examples/skills`: discovery, the catalog, and the
//! three tools as a model calls them.

use std::sync::Arc;

use serde_json::json;
use skillful::core::{SkillError, SourceContext};
use skillful::discovery::FileSkillsSource;
use skillful::discovery::{FileScriptRequest, FileScriptRunner};
use skillful::inline::SkillsSourceBuilder;
use skillful::provider::{SkillsProvider, ToolOutput};

const EXAMPLES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/skills");

/// Records what it was asked to run instead of running it; running scripts is another crate's job.
#[derive(Debug, Default)]
struct RecordingRunner(std::sync::Mutex<Vec<FileScriptRequest>>);

#[async_trait::async_trait]
impl FileScriptRunner for RecordingRunner {
    async fn run(&self, request: FileScriptRequest) -> Result<String, SkillError> {
        let text = format!("ran {} with {}", request.script_name, request.arguments);
        self.0.lock().unwrap().push(request);
        Ok(text)
    }
}

async fn provider(runner: Arc<RecordingRunner>) -> SkillsProvider {
    let files = FileSkillsSource::builder()
        .root(EXAMPLES)
        .script_runner(runner)
        .build()
        .unwrap();
    let source = SkillsSourceBuilder::new()
        .source(Arc::new(files))
        .cache()
        .build();
    SkillsProvider::new(source)
}

fn text(output: ToolOutput) -> String {
    match output {
        ToolOutput::Text(text) => text,
        ToolOutput::Error(error) => panic!("tool failed: {error}"),
    }
}

#[tokio::test]
async fn a_model_discovers_loads_reads_and_runs_the_unit_converter() {
    let runner = Arc::new(RecordingRunner::default());
    let provider = provider(runner.clone()).await;
    let run = provider.context(&SourceContext::default()).await.unwrap();

    let catalog = run.instructions().unwrap();
    assert!(catalog.starts_with("You have access to skills containing domain-specific knowledge"));
    assert!(catalog.contains(
        "  <skill>\n    <name>unit-converter</name>\n    <description>Converts values between units"
    ));

    let skill_md = std::fs::read_to_string(format!("{EXAMPLES}/unit-converter/SKILL.md")).unwrap();
    let loaded = text(
        run.tool("load_skill")
            .unwrap()
            .invoke(json!({"skillName": "unit-converter"}))
            .await,
    );
    assert!(
        loaded.starts_with(&skill_md),
        "load_skill starts with the raw SKILL.md"
    );
    assert!(loaded.contains(r#"<resource name="references/conversion-table.md"/>"#));
    assert!(loaded.contains(r#"<script name="scripts/convert.py" risk="read">"#));

    let read = run.tool("read_skill_resource").unwrap();
    let table = text(read.invoke(json!({"skillName": "unit-converter", "resourceName": "references/conversion-table.md"})).await);
    assert!(table.contains("| miles | kilometres | 1.609344 |"));
    // Models drop directories and extensions; one resource fits, so it is served.
    let forgiven = text(
        read.invoke(json!({"skillName": "unit-converter", "resourceName": "conversion-table"}))
            .await,
    );
    assert!(forgiven.contains("| miles | kilometres | 1.609344 |"));

    let script = run.tool("run_skill_script").unwrap();
    let arguments = json!({"value": 26.2, "factor": 1.609344});
    let ran = text(script.invoke(json!({"skillName": "unit-converter", "scriptName": "scripts/convert.py", "arguments": arguments})).await);
    assert!(ran.starts_with("ran scripts/convert.py"));
    let requests = runner.0.lock().unwrap();
    assert_eq!(requests.len(), 1);
    assert_eq!(requests[0].arguments, arguments);
    assert!(
        requests[0]
            .script_path
            .ends_with("unit-converter/scripts/convert.py")
    );
}

#[tokio::test]
async fn traversal_attempts_are_not_found() {
    let provider = provider(Arc::default()).await;
    let run = provider.context(&SourceContext::default()).await.unwrap();
    let read = run.tool("read_skill_resource").unwrap();
    for name in [
        "../unit-converter/SKILL.md",
        "SKILL.md",
        "/etc/passwd",
        "references/../SKILL.md",
        "references%2f..%2f..%2fSKILL.md",
        "%2e%2e/SKILL.md",
        "references\\..\\SKILL.md",
    ] {
        let output = read
            .invoke(json!({"skillName": "unit-converter", "resourceName": name}))
            .await;
        let ToolOutput::Error(error) = output else {
            panic!("{name} was served")
        };
        assert_eq!(
            error.message,
            format!("Error: Resource '{name}' not found in skill 'unit-converter'.")
        );
    }
}

#[tokio::test]
async fn no_skills_means_no_instructions_and_no_tools() {
    let empty = tempfile::tempdir().unwrap();
    let source = FileSkillsSource::builder()
        .root(empty.path())
        .build()
        .unwrap();
    let run = SkillsProvider::new(Arc::new(source))
        .context(&SourceContext::default())
        .await
        .unwrap();
    assert!(run.instructions().is_none());
    assert!(run.tools().is_empty());
}

#[cfg(unix)]
#[tokio::test]
async fn a_symlink_planted_after_discovery_is_not_followed() {
    let root = tempfile::tempdir().unwrap();
    let skill = root.path().join("unit-converter");
    std::fs::create_dir_all(skill.join("references")).unwrap();
    std::fs::copy(
        format!("{EXAMPLES}/unit-converter/SKILL.md"),
        skill.join("SKILL.md"),
    )
    .unwrap();
    let table = skill.join("references/conversion-table.md");
    std::fs::write(&table, "miles 1.609344\n").unwrap();
    let secret = root.path().join("secret.md");
    std::fs::write(&secret, "API_KEY=hunter2\n").unwrap();

    let source = FileSkillsSource::builder()
        .root(root.path())
        .build()
        .unwrap();
    let run = SkillsProvider::new(Arc::new(source))
        .context(&SourceContext::default())
        .await
        .unwrap();
    std::fs::remove_file(&table).unwrap();
    std::os::unix::fs::symlink(&secret, &table).unwrap();

    let output = run
        .tool("read_skill_resource")
        .unwrap()
        .invoke(json!({"skillName": "unit-converter", "resourceName": "references/conversion-table.md"}))
        .await;
    assert!(output.is_error(), "{output:?}");
    assert!(!output.into_model_text().contains("hunter2"));
}

use std::fmt;
use std::path::PathBuf;
use std::sync::Arc;

use async_trait::async_trait;

use crate::error::SkillError;
use crate::skill::Skill;

/// What a [`SkillsSource`] is asked for skills on behalf of.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct SourceContext {
    /// Separates cached results between tenants, users or sessions; `None` shares one cache entry.
    pub isolation_key: Option<String>,
}

impl SourceContext {
    /// A context whose results are cached under `key`.
    pub fn isolated(key: impl Into<String>) -> Self {
        Self {
            isolation_key: Some(key.into()),
        }
    }
}

/// Anything that yields skills: a directory tree, code, a plugin, a server, or a pipeline of these.
#[async_trait]
pub trait SkillsSource: Send + Sync + fmt::Debug {
    /// The skills this source offers now.
    ///
    /// A source skips (with a `tracing` warning) what it cannot load and returns the rest; an
    /// error means the source as a whole failed.
    async fn skills(&self, context: &SourceContext) -> Result<Vec<Arc<dyn Skill>>, SkillError>;
}

/// A request to run one script file of a file skill.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct FileScriptRequest {
    /// The skill's name.
    pub skill_name: String,
    /// The skill's directory (canonical).
    pub skill_dir: PathBuf,
    /// The script's name as the model sees it (`scripts/convert.py`).
    pub script_name: String,
    /// The script file (canonical, checked to lie inside `skill_dir`).
    pub script_path: PathBuf,
    /// The model's arguments, as given.
    pub arguments: serde_json::Value,
}

impl FileScriptRequest {
    /// A request to run `script_path`, which the skill calls `script_name`.
    pub fn new(
        skill_name: impl Into<String>,
        skill_dir: impl Into<PathBuf>,
        script_name: impl Into<String>,
        script_path: impl Into<PathBuf>,
        arguments: serde_json::Value,
    ) -> Self {
        Self {
            skill_name: skill_name.into(),
            skill_dir: skill_dir.into(),
            script_name: script_name.into(),
            script_path: script_path.into(),
            arguments,
        }
    }
}

/// Runs script files of file skills (an interpreter per extension, limits, an environment).
///
/// The file source holds an optional runner; without one, scripts are listed but fail when run.
#[async_trait]
pub trait FileScriptRunner: Send + Sync + fmt::Debug {
    /// Runs the script and returns what the model is shown.
    async fn run(&self, request: FileScriptRequest) -> Result<String, SkillError>;
}

/// A shared runner.
pub type SharedScriptRunner = Arc<dyn FileScriptRunner>;

//! The port through which file skills run their script files: the file source hands each run to
//! a [`FileScriptRunner`] (such as `skillful-scripts`' process runner) with the script's checked
//! path.

use std::fmt;
use std::path::PathBuf;
use std::sync::Arc;

use async_trait::async_trait;
use skillful_core::{RiskTier, ScriptMonitor, SkillError};

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
    /// The script's risk tier (what the skill declares; [`RiskTier::SCRIPT_DEFAULT`] unless set
    /// with [`with_risk`](Self::with_risk)): a sandboxing runner confines it to that tier.
    pub risk: RiskTier,
    /// Whether the skill declares it needs the network (`capabilities.network`, not `none`):
    /// a sandboxing runner opens the network to a `write-high` script only then, and the
    /// declaration is part of what the user approves.
    pub network: bool,
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
            risk: RiskTier::SCRIPT_DEFAULT,
            network: false,
        }
    }

    /// The same request for a script of risk tier `risk`.
    #[must_use]
    pub fn with_risk(mut self, risk: RiskTier) -> Self {
        self.risk = risk;
        self
    }

    /// The same request from a skill that declares (`true`) it needs the network.
    #[must_use]
    pub fn with_network(mut self, declared: bool) -> Self {
        self.network = declared;
        self
    }
}

/// Runs script files of file skills (an interpreter per extension, limits, an environment).
///
/// The file source holds an optional runner; without one, scripts are listed but fail when run.
#[async_trait]
pub trait FileScriptRunner: Send + Sync + fmt::Debug {
    /// Runs the script and returns what the model is shown.
    ///
    /// # Errors
    /// The script cannot start, fails or times out.
    async fn run(&self, request: FileScriptRequest) -> Result<String, SkillError>;

    /// [`FileScriptRunner::run`], showing the script's output to `observer` as it is written
    /// (see [`SkillScript::run_monitored`](skillful_core::SkillScript::run_monitored)); the default
    /// runs it unobserved.
    ///
    /// # Errors
    /// As [`FileScriptRunner::run`].
    async fn run_monitored(
        &self,
        request: FileScriptRequest,
        monitor: Arc<dyn ScriptMonitor>,
    ) -> Result<String, SkillError> {
        let _ = monitor;
        self.run(request).await
    }

    /// The line saying what confines a script of `tier` this runner runs (its sandbox profile)
    /// from a skill that declares (`network`) it needs the network or not, for the person
    /// approving a call; `None` (the default) when the runner does not say.
    fn sandbox_profile(&self, tier: RiskTier, network: bool) -> Option<String> {
        let _ = (tier, network);
        None
    }

    /// How long a script this runner runs may take (its configured timeout), which every file
    /// script reports as its [`SkillScript::timeout`](skillful_core::SkillScript::timeout);
    /// `None` (the default) for the workspace's default.
    fn timeout(&self) -> Option<std::time::Duration> {
        None
    }
}

/// A shared runner.
pub type SharedScriptRunner = Arc<dyn FileScriptRunner>;

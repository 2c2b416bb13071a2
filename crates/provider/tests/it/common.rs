//! Small skills and helpers shared by the tests.

use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use serde_json::Value;
use skillful_core::{
    OriginKind, ResourceContent, RiskTier, Skill, SkillDocument, SkillError, SkillFrontmatter,
    SkillOrigin, SkillResource, SkillScript, SourceContext,
};
use skillful_inline::{InlineSkill, InlineSkillsSource};
use skillful_provider::{RunContext, SkillsProvider, ToolError, ToolOutput};

/// An inline skill with only the required parts.
pub(crate) fn inline(name: &str, description: &str) -> InlineSkill {
    InlineSkill::builder(name, description)
        .instructions(format!("Instructions of {name}."))
        .build()
        .unwrap()
}

/// What a [`TestResource`] gives when read.
#[derive(Debug, Clone)]
pub(crate) enum TestContent {
    Text(String),
    Binary(Vec<u8>, Option<String>),
    IoError,
    Failure(String),
}

#[derive(Debug)]
pub(crate) struct TestResource {
    pub name: String,
    pub content: TestContent,
}

#[async_trait]
impl SkillResource for TestResource {
    fn name(&self) -> &str {
        &self.name
    }

    async fn read(&self) -> Result<ResourceContent, SkillError> {
        match &self.content {
            TestContent::Text(text) => Ok(ResourceContent::Text(text.clone())),
            TestContent::Binary(bytes, mime_type) => Ok(ResourceContent::Binary {
                bytes: bytes.clone(),
                mime_type: mime_type.clone(),
            }),
            TestContent::IoError => Err(SkillError::Unreadable {
                what: "/secret/host/path/FAQ.md".into(),
                source: std::io::Error::other("disk on fire"),
            }),
            TestContent::Failure(message) => Err(SkillError::Other(message.clone())),
        }
    }
}

/// A script that echoes its arguments as JSON, or fails with a message.
#[derive(Debug)]
pub(crate) struct TestScript {
    pub name: String,
    pub failure: Option<String>,
    pub risk: Option<RiskTier>,
}

#[async_trait]
impl SkillScript for TestScript {
    fn name(&self) -> &str {
        &self.name
    }

    fn risk_tier(&self) -> RiskTier {
        self.risk.unwrap_or(RiskTier::SCRIPT_DEFAULT)
    }

    async fn run(&self, arguments: Value) -> Result<String, SkillError> {
        match &self.failure {
            Some(message) => Err(SkillError::Script {
                script: self.name.clone(),
                message: message.clone(),
            }),
            None => Ok(format!("ran with {arguments}")),
        }
    }
}

/// A skill made of test parts. When `answers_unlisted` is set, its exact lookups also answer
/// names it does not list (as an MCP skill does); every name it is asked for is recorded.
#[derive(Debug)]
pub(crate) struct TestSkill {
    pub frontmatter: SkillFrontmatter,
    pub origin: SkillOrigin,
    pub resources: Vec<Arc<dyn SkillResource>>,
    pub scripts: Vec<Arc<dyn SkillScript>>,
    pub answers_unlisted: bool,
    pub asked: Mutex<Vec<String>>,
}

impl TestSkill {
    pub(crate) fn new(name: &str) -> Self {
        Self {
            frontmatter: SkillFrontmatter::new(name, format!("The {name} skill.")),
            origin: SkillOrigin::new(OriginKind::Mcp, "test")
                .with_location(format!("test://{name}")),
            resources: Vec::new(),
            scripts: Vec::new(),
            answers_unlisted: false,
            asked: Mutex::new(Vec::new()),
        }
    }

    pub(crate) fn text(self, name: &str, text: &str) -> Self {
        self.content(name, TestContent::Text(text.to_owned()))
    }

    pub(crate) fn content(mut self, name: &str, content: TestContent) -> Self {
        self.resources.push(Arc::new(TestResource {
            name: name.to_owned(),
            content,
        }));
        self
    }

    pub(crate) fn script(mut self, name: &str, failure: Option<&str>) -> Self {
        self.scripts.push(Arc::new(TestScript {
            name: name.to_owned(),
            failure: failure.map(str::to_owned),
            risk: None,
        }));
        self
    }

    pub(crate) fn script_with_risk(mut self, name: &str, risk: RiskTier) -> Self {
        self.scripts.push(Arc::new(TestScript {
            name: name.to_owned(),
            failure: None,
            risk: Some(risk),
        }));
        self
    }
}

#[async_trait]
impl Skill for TestSkill {
    fn frontmatter(&self) -> &SkillFrontmatter {
        &self.frontmatter
    }

    fn origin(&self) -> &SkillOrigin {
        &self.origin
    }

    async fn document(&self) -> Result<SkillDocument, SkillError> {
        Ok(SkillDocument::instructions(format!(
            "Content of {}.",
            self.frontmatter.name
        )))
    }

    fn resources(&self) -> Vec<Arc<dyn SkillResource>> {
        self.resources.clone()
    }

    fn scripts(&self) -> Vec<Arc<dyn SkillScript>> {
        self.scripts.clone()
    }

    fn resource(&self, name: &str) -> Option<Arc<dyn SkillResource>> {
        self.asked.lock().unwrap().push(name.to_owned());
        let listed = self.resources.iter().find(|r| r.name() == name).cloned();
        if listed.is_none() && self.answers_unlisted {
            return Some(Arc::new(TestResource {
                name: name.to_owned(),
                content: TestContent::Text(format!("unlisted {name}")),
            }));
        }
        listed
    }
}

/// A provider over `skills` with the default settings.
pub(crate) fn provider(skills: Vec<Arc<dyn Skill>>) -> SkillsProvider {
    SkillsProvider::new(Arc::new(InlineSkillsSource::from_skills(skills)))
}

/// One run of `provider`.
pub(crate) async fn run_of(provider: &SkillsProvider) -> RunContext {
    provider.context(&SourceContext::default()).await.unwrap()
}

/// One run over `skills`.
pub(crate) async fn run(skills: Vec<Arc<dyn Skill>>) -> RunContext {
    run_of(&provider(skills)).await
}

/// Calls the tool `name` of `run` with `arguments`.
pub(crate) async fn call(run: &RunContext, name: &str, arguments: Value) -> ToolOutput {
    run.tool(name).unwrap().invoke(arguments).await
}

/// The text of a successful call.
pub(crate) fn expect_text(output: ToolOutput) -> String {
    match output {
        ToolOutput::Text(text) => text,
        ToolOutput::Error(error) => panic!("expected text, got {error}"),
    }
}

/// The error of a failed call.
pub(crate) fn expect_error(output: ToolOutput) -> ToolError {
    match output {
        ToolOutput::Error(error) => error,
        ToolOutput::Text(text) => panic!("expected an error, got {text:?}"),
    }
}

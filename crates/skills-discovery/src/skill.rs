use std::io;
use std::path::{Path, PathBuf};
use std::sync::{Arc, LazyLock};

use async_trait::async_trait;
use skills_core::content::{available_resources_block, available_scripts_block};
use skills_core::{
    Diagnostic, FileScriptRequest, ResourceContent, SharedScriptRunner, Skill, SkillError,
    SkillFrontmatter, SkillOrigin, SkillResource, SkillScript,
};

use crate::guard::{blocking, check_inside, read_inside};

/// The file that makes a directory a skill.
pub(crate) const SKILL_FILE: &str = "SKILL.md";

/// What every file script accepts: the command-line arguments, as a JSON array of strings.
static FILE_SCRIPT_SCHEMA: LazyLock<serde_json::Value> =
    LazyLock::new(|| serde_json::json!({"type": "array", "items": {"type": "string"}}));

/// A skill read from a directory holding `SKILL.md`.
///
/// Only the frontmatter and the file names were read at discovery. [`Skill::content`] and every
/// resource read go back to the disk, and re-check that the file is still inside the skill
/// directory and reached without a symbolic link.
#[derive(Debug)]
pub struct FileSkill {
    frontmatter: SkillFrontmatter,
    dir: Arc<Path>,
    max_file_bytes: u64,
    resources: Vec<Arc<dyn SkillResource>>,
    scripts: Vec<Arc<dyn SkillScript>>,
    diagnostics: Vec<Diagnostic>,
}

/// How the scripts of one source may run.
#[derive(Debug, Clone)]
pub(crate) struct ScriptPolicy {
    pub(crate) runner: Option<SharedScriptRunner>,
    pub(crate) runnable: bool,
}

/// The parts of a [`FileSkill`] that discovery finds.
pub(crate) struct FoundSkill {
    pub(crate) frontmatter: SkillFrontmatter,
    pub(crate) dir: PathBuf,
    pub(crate) max_file_bytes: u64,
    pub(crate) resources: Vec<String>,
    pub(crate) scripts: Vec<String>,
    pub(crate) diagnostics: Vec<Diagnostic>,
}

impl FileSkill {
    pub(crate) fn new(found: FoundSkill, policy: &ScriptPolicy) -> Self {
        let dir: Arc<Path> = Arc::from(found.dir);
        let skill_name: Arc<str> = Arc::from(found.frontmatter.name.as_str());
        let resources = found
            .resources
            .into_iter()
            .map(|name| {
                Arc::new(FileResource {
                    name,
                    dir: dir.clone(),
                }) as Arc<dyn SkillResource>
            })
            .collect();
        let scripts = found
            .scripts
            .into_iter()
            .map(|name| {
                Arc::new(FileScript {
                    name,
                    dir: dir.clone(),
                    skill_name: skill_name.clone(),
                    policy: policy.clone(),
                }) as Arc<dyn SkillScript>
            })
            .collect();
        Self {
            frontmatter: found.frontmatter,
            dir,
            max_file_bytes: found.max_file_bytes,
            resources,
            scripts,
            diagnostics: found.diagnostics,
        }
    }

    /// The skill's directory (canonical).
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The skill's `SKILL.md`.
    pub fn skill_md_path(&self) -> PathBuf {
        self.dir.join(SKILL_FILE)
    }

    /// The warnings found while loading the skill (its frontmatter, and files that were
    /// skipped), each naming its file.
    pub fn diagnostics(&self) -> &[Diagnostic] {
        &self.diagnostics
    }
}

#[async_trait]
impl Skill for FileSkill {
    fn frontmatter(&self) -> &SkillFrontmatter {
        &self.frontmatter
    }

    fn origin(&self) -> SkillOrigin {
        SkillOrigin::Directory(self.dir.to_path_buf())
    }

    /// The `SKILL.md` as it is on disk now (frontmatter included, without a byte-order mark),
    /// then the `<available_resources>` and `<available_scripts>` blocks.
    async fn content(&self) -> Result<String, SkillError> {
        let dir = self.dir.clone();
        let limit = self.max_file_bytes;
        let bytes = blocking(move || read_inside(&dir, SKILL_FILE, Some(limit))).await?;
        let text = String::from_utf8(bytes).map_err(|error| SkillError::Io {
            path: self.skill_md_path(),
            source: io::Error::new(
                io::ErrorKind::InvalidData,
                format!(
                    "the file is not UTF-8 (invalid byte at offset {}); save it as UTF-8",
                    error.utf8_error().valid_up_to()
                ),
            ),
        })?;
        let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
        let separator = if text.ends_with('\n') { "\n" } else { "\n\n" };
        Ok(format!(
            "{text}{separator}{}",
            listing(&self.resources, &self.scripts)
        ))
    }

    fn resources(&self) -> Vec<Arc<dyn SkillResource>> {
        self.resources.clone()
    }

    fn scripts(&self) -> Vec<Arc<dyn SkillScript>> {
        self.scripts.clone()
    }
}

/// The resource and script blocks that follow the `SKILL.md` text in [`Skill::content`].
fn listing(resources: &[Arc<dyn SkillResource>], scripts: &[Arc<dyn SkillScript>]) -> String {
    format!(
        "{}\n\n{}",
        available_resources_block(resources),
        available_scripts_block(scripts)
    )
}

/// A file of a skill offered to the model to read, such as `references/FAQ.md`.
#[derive(Debug)]
struct FileResource {
    name: String,
    dir: Arc<Path>,
}

#[async_trait]
impl SkillResource for FileResource {
    fn name(&self) -> &str {
        &self.name
    }

    /// The file as it is now: text when it is UTF-8 (without a byte-order mark), bytes otherwise.
    async fn read(&self) -> Result<ResourceContent, SkillError> {
        let dir = self.dir.clone();
        let name = self.name.clone();
        let bytes = blocking(move || read_inside(&dir, &name, None)).await?;
        Ok(match String::from_utf8(bytes) {
            Ok(text) => ResourceContent::Text(match text.strip_prefix('\u{feff}') {
                Some(rest) => rest.to_owned(),
                None => text,
            }),
            Err(error) => ResourceContent::Binary {
                bytes: error.into_bytes(),
                mime_type: None,
            },
        })
    }
}

/// A script file of a skill, such as `scripts/convert.py`, run by the source's runner.
#[derive(Debug)]
struct FileScript {
    name: String,
    dir: Arc<Path>,
    skill_name: Arc<str>,
    policy: ScriptPolicy,
}

#[async_trait]
impl SkillScript for FileScript {
    fn name(&self) -> &str {
        &self.name
    }

    fn parameters_schema(&self) -> Option<&serde_json::Value> {
        Some(&FILE_SCRIPT_SCHEMA)
    }

    /// Re-checks the script's path, then hands it and the raw arguments to the runner.
    async fn run(&self, arguments: serde_json::Value) -> Result<String, SkillError> {
        if !self.policy.runnable {
            return Err(SkillError::Script {
                script: self.name.clone(),
                message: format!(
                    "the scripts of skill '{}' are not allowed to run: it comes from an untrusted source (such as an archive); read its files instead, or load it from a trusted directory",
                    self.skill_name
                ),
            });
        }
        let Some(runner) = &self.policy.runner else {
            return Err(SkillError::NoScriptRunner {
                script: self.name.clone(),
            });
        };
        let dir = self.dir.clone();
        let name = self.name.clone();
        let (script_path, _) = blocking(move || check_inside(&dir, &name)).await?;
        runner
            .run(FileScriptRequest::new(
                self.skill_name.as_ref(),
                self.dir.as_ref(),
                self.name.as_str(),
                script_path,
                arguments,
            ))
            .await
    }
}

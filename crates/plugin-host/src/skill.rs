//! A skill served by a plugin library: described once at load, its dynamic resources and scripts
//! called on tokio's blocking pool.

use std::collections::HashSet;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use abi_stable::library::lib_header_from_path;
use abi_stable::std_types::{RResult, RStr, RString};
use async_trait::async_trait;
use skillful_core::validate::{ValidationMode, validate_frontmatter};
use skillful_core::{
    DEFAULT_SCRIPT_TIMEOUT, DeclaredRisk, Diagnostic, Mapping, OriginKind, ResourceContent,
    RiskTier, Skill, SkillDocument, SkillError, SkillFrontmatter, SkillOrigin, SkillResource,
    SkillScript,
};
use skillful_plugin_abi::ffi::{FrontmatterInfo, ResourceInfo, ScriptInfo, SkillPluginRef};
use skillful_state::blocking;

use crate::error::PluginError;

/// A skill loaded from a plugin library.
///
/// Its frontmatter, instructions and listings are read once, at load, and the frontmatter is
/// checked by the workspace's one validator (leniently: warnings are kept in
/// [`Skill::diagnostics`]); static resources are served from memory, while dynamic resources and
/// scripts call into the plugin on tokio's blocking pool on every read or run, each call
/// abandoned after [`DEFAULT_SCRIPT_TIMEOUT`] (the thread it runs on cannot be stopped). A
/// library, once loaded, stays loaded for the life of the process.
pub struct PluginSkill {
    path: PathBuf,
    origin: SkillOrigin,
    frontmatter: SkillFrontmatter,
    instructions: String,
    resources: Vec<Arc<dyn SkillResource>>,
    scripts: Vec<Arc<dyn SkillScript>>,
    diagnostics: Vec<Diagnostic>,
}

impl PluginSkill {
    /// Loads the plugin library at `path` and describes its skill. Blocking: it opens the
    /// library and calls into it; from async code, use [`PluginSkillsSource`](crate::PluginSkillsSource)
    /// or `spawn_blocking`.
    ///
    /// # Errors
    /// The file is not a library, not a plugin, built against an incompatible interface, or
    /// describes a skill that cannot be served; or the plugin failed or panicked describing it.
    pub fn load(path: impl AsRef<Path>) -> Result<Self, PluginError> {
        let path = path.as_ref();
        let module = lib_header_from_path(path)
            .and_then(|header| header.init_root_module::<SkillPluginRef>())
            .map_err(|error| PluginError::from_library(path, error))?;
        Describe { path, module }.skill()
    }

    /// The library the skill was loaded from.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The same skill, its origin in `scope` (where its plugin directory was found).
    pub fn with_scope(mut self, scope: skillful_core::Scope) -> Self {
        self.origin = self.origin.with_scope(scope);
        self
    }
}

impl fmt::Debug for PluginSkill {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PluginSkill")
            .field("name", &self.frontmatter.name)
            .field("path", &self.path)
            .field("resources", &self.resources)
            .field("scripts", &self.scripts)
            .finish_non_exhaustive()
    }
}

#[async_trait]
impl Skill for PluginSkill {
    fn frontmatter(&self) -> &SkillFrontmatter {
        &self.frontmatter
    }

    fn origin(&self) -> &SkillOrigin {
        &self.origin
    }

    async fn document(&self) -> Result<SkillDocument, SkillError> {
        Ok(SkillDocument::instructions(self.instructions.clone()))
    }

    fn resources(&self) -> Vec<Arc<dyn SkillResource>> {
        self.resources.clone()
    }

    fn scripts(&self) -> Vec<Arc<dyn SkillScript>> {
        self.scripts.clone()
    }

    fn diagnostics(&self) -> &[Diagnostic] {
        &self.diagnostics
    }
}

/// Reads a loaded module's description of its skill and checks it.
struct Describe<'a> {
    path: &'a Path,
    module: SkillPluginRef,
}

impl Describe<'_> {
    fn skill(&self) -> Result<PluginSkill, PluginError> {
        let frontmatter = self.frontmatter(self.call((self.module.frontmatter())())?)?;
        let validated =
            validate_frontmatter(&frontmatter, ValidationMode::Lenient).map_err(|diagnostics| {
                let reasons: Vec<String> = diagnostics
                    .iter()
                    .filter(|diagnostic| diagnostic.is_error())
                    .map(|diagnostic| format!("{}: {}", diagnostic.field, diagnostic.message))
                    .collect();
                self.invalid(reasons.join("; "))
            })?;
        let (frontmatter, mut diagnostics) = (validated.frontmatter, validated.diagnostics);
        let instructions = self.call((self.module.instructions())())?.into_string();
        if instructions.trim().is_empty() {
            return Err(self.invalid("its instructions are blank".to_owned()));
        }
        let skill: Arc<str> = frontmatter.name.as_str().into();
        let resources = self.call((self.module.resources())())?;
        self.check_names("resource", resources.iter().map(|r| r.name.as_str()))?;
        let resources: Vec<Arc<dyn SkillResource>> = resources
            .into_iter()
            .map(|info| Arc::new(self.resource(&skill, info)) as Arc<dyn SkillResource>)
            .collect();
        let scripts = self.call((self.module.scripts())())?;
        self.check_names("script", scripts.iter().map(|s| s.name.as_str()))?;
        let scripts = scripts
            .into_iter()
            .map(|info| Ok(Arc::new(self.script(info)?) as Arc<dyn SkillScript>))
            .collect::<Result<Vec<_>, PluginError>>()?;
        // The tiers came resolved through the interface; the declarations are checked here so
        // that a bad one is reported, as for every source.
        let (_, warnings) = DeclaredRisk::for_scripts(
            &frontmatter.metadata,
            scripts.iter().map(|script| script.name()),
        );
        diagnostics.extend(warnings);
        for diagnostic in &diagnostics {
            tracing::warn!(path = %self.path.display(), field = %diagnostic.field, "{}", diagnostic.message);
        }
        let location = self.path.display().to_string();
        Ok(PluginSkill {
            path: self.path.to_path_buf(),
            origin: SkillOrigin::new(OriginKind::Plugin, location.clone()).with_location(location),
            frontmatter,
            instructions,
            resources,
            scripts,
            diagnostics,
        })
    }

    fn call<T>(&self, result: RResult<T, RString>) -> Result<T, PluginError> {
        result.into_result().map_err(|message| PluginError::Failed {
            path: self.path.to_path_buf(),
            message: message.into_string(),
        })
    }

    fn invalid(&self, message: String) -> PluginError {
        PluginError::InvalidSkill {
            path: self.path.to_path_buf(),
            message,
        }
    }

    fn check_names<'n>(
        &self,
        kind: &str,
        names: impl Iterator<Item = &'n str>,
    ) -> Result<(), PluginError> {
        let mut seen = HashSet::new();
        for name in names {
            if name.trim().is_empty() {
                return Err(self.invalid(format!("it has a {kind} with a blank name")));
            }
            if !seen.insert(name) {
                return Err(self.invalid(format!("it has two {kind}s named '{name}'")));
            }
        }
        Ok(())
    }

    fn frontmatter(&self, info: FrontmatterInfo) -> Result<SkillFrontmatter, PluginError> {
        let mut frontmatter = SkillFrontmatter::new(info.name, info.description);
        frontmatter.license = info.license.map(RString::into_string).into_option();
        frontmatter.compatibility = info.compatibility.map(RString::into_string).into_option();
        frontmatter.allowed_tools = info
            .allowed_tools
            .map(|tools| tools.into_iter().map(RString::into_string).collect())
            .into_option();
        frontmatter.metadata = info
            .metadata
            .into_iter()
            .map(|pair| (pair.0.into_string(), pair.1.into_string()))
            .collect();
        frontmatter.extra = serde_json::from_str::<Mapping>(&info.extra_json).map_err(|error| {
            self.invalid(format!(
                "its frontmatter's extra keys are not a JSON object: {error}"
            ))
        })?;
        Ok(frontmatter)
    }

    fn resource(&self, skill: &Arc<str>, info: ResourceInfo) -> PluginResource {
        PluginResource {
            name: info.name.into_string(),
            description: info.description.map(RString::into_string).into_option(),
            text: info.text.map(RString::into_string).into_option(),
            skill: Arc::clone(skill),
            module: self.module,
        }
    }

    fn script(&self, info: ScriptInfo) -> Result<PluginScript, PluginError> {
        let name = info.name.into_string();
        let schema = serde_json::from_str(&info.parameters_schema).map_err(|error| {
            self.invalid(format!(
                "the parameters schema of script '{name}' is not JSON: {error}"
            ))
        })?;
        let risk = info
            .risk_tier
            .parse::<RiskTier>()
            .map_err(|error| self.invalid(format!("script '{name}': {error}")))?;
        Ok(PluginScript {
            name,
            description: info.description.map(RString::into_string).into_option(),
            schema,
            risk,
            module: self.module,
        })
    }
}

/// Runs a call into the plugin on tokio's blocking pool, abandoned (as [`SkillError::TimedOut`]
/// naming `what`) after [`DEFAULT_SCRIPT_TIMEOUT`].
async fn off_runtime<T: Send + 'static>(
    what: String,
    call: impl FnOnce() -> RResult<RString, RString> + Send + 'static,
    finish: impl FnOnce(Result<String, String>) -> Result<T, SkillError>,
) -> Result<T, SkillError> {
    let call = blocking::run("a plugin call", move || call().into_result());
    let result = tokio::time::timeout(DEFAULT_SCRIPT_TIMEOUT, call)
        .await
        .map_err(|_| SkillError::TimedOut {
            what,
            after: DEFAULT_SCRIPT_TIMEOUT,
        })?
        .map_err(SkillError::other)?;
    finish(
        result
            .map(RString::into_string)
            .map_err(RString::into_string),
    )
}

/// A resource of a plugin skill: static text, or read from the plugin on every read.
struct PluginResource {
    name: String,
    description: Option<String>,
    text: Option<String>,
    skill: Arc<str>,
    module: SkillPluginRef,
}

impl fmt::Debug for PluginResource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PluginResource")
            .field("name", &self.name)
            .field("description", &self.description)
            .field("dynamic", &self.text.is_none())
            .finish_non_exhaustive()
    }
}

#[async_trait]
impl SkillResource for PluginResource {
    fn name(&self) -> &str {
        &self.name
    }

    fn description(&self) -> Option<&str> {
        self.description.as_deref()
    }

    async fn read(&self) -> Result<ResourceContent, SkillError> {
        if let Some(text) = &self.text {
            return Ok(ResourceContent::Text(text.clone()));
        }
        let read = self.module.read_resource();
        let name = self.name.clone();
        off_runtime(
            format!("resource '{}' of plugin skill '{}'", self.name, self.skill),
            move || read(RStr::from_str(&name)),
            |result| {
                result.map(ResourceContent::Text).map_err(|message| {
                    SkillError::Other(format!(
                        "resource '{}' of skill '{}' failed: {message}",
                        self.name, self.skill
                    ))
                })
            },
        )
        .await
    }
}

/// A script of a plugin skill, run in the plugin.
struct PluginScript {
    name: String,
    description: Option<String>,
    schema: serde_json::Value,
    risk: RiskTier,
    module: SkillPluginRef,
}

impl fmt::Debug for PluginScript {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PluginScript")
            .field("name", &self.name)
            .field("description", &self.description)
            .field("risk", &self.risk)
            .finish_non_exhaustive()
    }
}

#[async_trait]
impl SkillScript for PluginScript {
    fn name(&self) -> &str {
        &self.name
    }

    fn description(&self) -> Option<&str> {
        self.description.as_deref()
    }

    fn parameters_schema(&self) -> Option<&serde_json::Value> {
        Some(&self.schema)
    }

    fn risk_tier(&self) -> RiskTier {
        self.risk
    }

    /// Runs the script in the plugin; no arguments (`null`) are passed as `{}`.
    async fn run(&self, arguments: serde_json::Value) -> Result<String, SkillError> {
        let arguments = match arguments {
            serde_json::Value::Null => "{}".to_owned(),
            other => other.to_string(),
        };
        let run = self.module.run_script();
        let name = self.name.clone();
        off_runtime(
            format!("script '{}'", self.name),
            move || run(RStr::from_str(&name), RStr::from_str(&arguments)),
            |result| {
                result.map_err(|message| SkillError::Script {
                    script: self.name.clone(),
                    message,
                })
            },
        )
        .await
    }
}

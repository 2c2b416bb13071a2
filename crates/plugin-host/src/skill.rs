//! A skill served by a plugin library: described once at load, its dynamic resources and scripts
//! called on tokio's blocking pool.

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use abi_stable::library::lib_header_from_path;
use abi_stable::std_types::{RResult, RStr, RString};
use async_trait::async_trait;
use skillful_core::{
    DEFAULT_SCRIPT_TIMEOUT, Diagnostic, Mapping, OriginKind, RiskTier, Skill, SkillDocument,
    SkillError, SkillFrontmatter, SkillOrigin, SkillResource, SkillScript,
};
use skillful_fs::blocking;
use skillful_inline::{InlineResource, InlineScript, InlineSkill};
use skillful_plugin_abi::ffi::{FrontmatterInfo, ResourceInfo, ScriptInfo, SkillPluginRef};

use crate::error::PluginError;

/// A skill loaded from a plugin library: an [`InlineSkill`] whose parts call into the plugin.
///
/// Its frontmatter, instructions and listings are read once, at load, and built into an inline
/// skill, so they are checked as every inline skill's are (the workspace's one validator,
/// leniently: warnings are kept in [`Skill::diagnostics`]; blank instructions, blank or duplicate
/// resource and script names refused); static resources are served from memory, while dynamic
/// resources and scripts call into the plugin on tokio's blocking pool on every read or run, each
/// call abandoned after [`DEFAULT_SCRIPT_TIMEOUT`] (the thread it runs on cannot be stopped). A
/// library, once loaded, stays loaded for the life of the process.
pub struct PluginSkill {
    path: PathBuf,
    skill: InlineSkill,
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
        let origin = self.skill.origin().clone().with_scope(scope);
        self.skill = self.skill.with_origin(origin);
        self
    }
}

impl fmt::Debug for PluginSkill {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PluginSkill")
            .field("path", &self.path)
            .field("skill", &self.skill)
            .finish()
    }
}

#[async_trait]
impl Skill for PluginSkill {
    fn frontmatter(&self) -> &SkillFrontmatter {
        self.skill.frontmatter()
    }

    fn origin(&self) -> &SkillOrigin {
        self.skill.origin()
    }

    async fn document(&self) -> Result<SkillDocument, SkillError> {
        self.skill.document().await
    }

    fn resources(&self) -> Vec<Arc<dyn SkillResource>> {
        self.skill.resources()
    }

    fn scripts(&self) -> Vec<Arc<dyn SkillScript>> {
        self.skill.scripts()
    }

    fn diagnostics(&self) -> &[Diagnostic] {
        self.skill.diagnostics()
    }
}

/// Reads a loaded module's description of its skill and builds it.
struct Describe<'a> {
    path: &'a Path,
    module: SkillPluginRef,
}

impl Describe<'_> {
    fn skill(&self) -> Result<PluginSkill, PluginError> {
        let frontmatter = self.frontmatter(self.call((self.module.frontmatter())())?)?;
        let name: Arc<str> = frontmatter.name.as_str().into();
        let mut builder = InlineSkill::builder_from(frontmatter)
            .instructions(self.call((self.module.instructions())())?.into_string());
        for info in self.call((self.module.resources())())? {
            builder = builder.add_resource(self.resource(&name, info));
        }
        for info in self.call((self.module.scripts())())? {
            builder = builder.add_script(self.script(info)?);
        }
        let location = self.path.display().to_string();
        let skill = builder
            .build()
            .map_err(|error| self.invalid(error.to_string()))?;
        Ok(PluginSkill {
            path: self.path.to_path_buf(),
            skill: skill.with_origin(
                SkillOrigin::new(OriginKind::Plugin, location.clone()).with_location(location),
            ),
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

    /// A static resource, or one read from the plugin on every read.
    fn resource(&self, skill: &Arc<str>, info: ResourceInfo) -> InlineResource {
        let name = info.name.into_string();
        let resource = match info.text.into_option() {
            Some(text) => InlineResource::text(name, text.into_string()),
            None => {
                let (module, skill, resource) = (self.module, Arc::clone(skill), name.clone());
                InlineResource::dynamic(name, move || {
                    read_resource(module, Arc::clone(&skill), resource.clone())
                })
            }
        };
        match info.description.into_option() {
            Some(description) => resource.with_description(description.into_string()),
            None => resource,
        }
    }

    /// A script run in the plugin, with the schema and risk tier the plugin gives it.
    fn script(&self, info: ScriptInfo) -> Result<InlineScript, PluginError> {
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
        let description = info.description.map(RString::into_string).into_option();
        let (module, script) = (self.module, name.clone());
        let run = move |arguments: serde_json::Value| run_script(module, script.clone(), arguments);
        Ok(
            InlineScript::from_json(name, description.unwrap_or_default(), schema, run)
                .with_risk_tier(risk),
        )
    }
}

/// Reads a dynamic resource from the plugin on tokio's blocking pool, abandoned (as
/// [`SkillError::TimedOut`]) after [`DEFAULT_SCRIPT_TIMEOUT`].
async fn read_resource(
    module: SkillPluginRef,
    skill: Arc<str>,
    name: String,
) -> Result<String, SkillError> {
    let what = format!("resource '{name}' of plugin skill '{skill}'");
    let read = module.read_resource();
    let resource = name.clone();
    let call = blocking::run("a plugin call", move || {
        read(RStr::from_str(&resource)).into_result()
    });
    let result = tokio::time::timeout(DEFAULT_SCRIPT_TIMEOUT, call)
        .await
        .map_err(|_| SkillError::TimedOut {
            what,
            after: DEFAULT_SCRIPT_TIMEOUT,
        })?
        .map_err(SkillError::other)?;
    result.map(RString::into_string).map_err(|message| {
        SkillError::Other(format!(
            "resource '{name}' of skill '{skill}' failed: {message}"
        ))
    })
}

/// Runs a script in the plugin on tokio's blocking pool (the provider abandons the call after its
/// inline script's limit, [`DEFAULT_SCRIPT_TIMEOUT`] unless set, as for every script); no
/// arguments (`null`) reach it as `{}`.
async fn run_script(
    module: SkillPluginRef,
    script: String,
    arguments: serde_json::Value,
) -> Result<String, SkillError> {
    let run = module.run_script();
    let name = script.clone();
    let result = blocking::run("a plugin call", move || {
        run(
            RStr::from_str(&name),
            RStr::from_str(&arguments.to_string()),
        )
        .into_result()
    })
    .await
    .map_err(SkillError::other)?;
    result
        .map(RString::into_string)
        .map_err(|message| SkillError::Script {
            script,
            message: message.into_string(),
        })
}

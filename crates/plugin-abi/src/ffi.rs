//! The types that cross the library boundary: the root module a plugin exports and the
//! descriptions it returns. Plugin authors never touch these; [`export_skill!`](crate::export_skill)
//! builds them.

use abi_stable::StableAbi;
use abi_stable::library::RootModule;
use abi_stable::sabi_types::VersionStrings;
use abi_stable::std_types::{ROption, RResult, RStr, RString, RVec, Tuple2};

/// The version of the plugin interface: the version of this crate.
///
/// A host loads a plugin built against an interface version with the same `0.y` (from 1.0: the
/// same major version) as its own, and whose root module has the same layout; see the crate
/// documentation for the whole policy.
pub const INTERFACE_VERSION: &str = env!("CARGO_PKG_VERSION");

/// The root module a plugin library exports: one skill.
///
/// A prefix type: fields may be appended in a compatible release (marked after the last prefix
/// field, read through accessors that return `Option`), so hosts and plugins of neighbouring
/// releases load each other. Every function returns `RErr` instead of unwinding: the plugin
/// side catches panics of the author's code.
#[repr(C)]
#[derive(StableAbi, Debug)]
#[sabi(kind(Prefix(prefix_ref = SkillPluginRef)))]
#[sabi(missing_field(panic))]
pub struct SkillPlugin {
    /// The skill's frontmatter.
    pub frontmatter: extern "C" fn() -> RResult<FrontmatterInfo, RString>,
    /// The instructions the model follows once it loads the skill.
    pub instructions: extern "C" fn() -> RResult<RString, RString>,
    /// The resources the skill advertises, in order.
    pub resources: extern "C" fn() -> RResult<RVec<ResourceInfo>, RString>,
    /// Reads the resource with this name afresh (called for resources without static text).
    pub read_resource: extern "C" fn(name: RStr<'_>) -> RResult<RString, RString>,
    /// The scripts the skill advertises, in order.
    pub scripts: extern "C" fn() -> RResult<RVec<ScriptInfo>, RString>,
    /// Runs the script with this name on its arguments (a JSON object as text) and returns the
    /// text the model is shown, or why it failed.
    #[sabi(last_prefix_field)]
    pub run_script: extern "C" fn(name: RStr<'_>, arguments: RStr<'_>) -> RResult<RString, RString>,
}

impl RootModule for SkillPluginRef {
    abi_stable::declare_root_module_statics! {SkillPluginRef}
    const BASE_NAME: &'static str = "skills_plugin";
    const NAME: &'static str = "skills plugin interface";
    const VERSION_STRINGS: VersionStrings = VersionStrings::new(INTERFACE_VERSION);
}

/// A skill's frontmatter as it crosses the boundary.
#[repr(C)]
#[derive(StableAbi, Debug, Clone, PartialEq)]
pub struct FrontmatterInfo {
    /// The skill's name.
    pub name: RString,
    /// What the skill does and when to use it.
    pub description: RString,
    /// The license, if any.
    pub license: ROption<RString>,
    /// The environment the skill needs, if said.
    pub compatibility: ROption<RString>,
    /// `allowed-tools`, if given.
    pub allowed_tools: ROption<RVec<RString>>,
    /// The `metadata` mapping, in order.
    pub metadata: RVec<Tuple2<RString, RString>>,
    /// Every other top-level key: a JSON object of its values, in order.
    pub extra_json: RString,
}

/// A resource as it is listed.
#[repr(C)]
#[derive(StableAbi, Debug, Clone, PartialEq)]
pub struct ResourceInfo {
    /// The name the model reads it by.
    pub name: RString,
    /// What it holds, if said.
    pub description: ROption<RString>,
    /// Its text when it never changes; `RNone` when it is produced on every read
    /// ([`SkillPlugin::read_resource`]).
    pub text: ROption<RString>,
}

/// A script as it is listed.
#[repr(C)]
#[derive(StableAbi, Debug, Clone, PartialEq)]
pub struct ScriptInfo {
    /// The name the model runs it by.
    pub name: RString,
    /// What it does, if said.
    pub description: ROption<RString>,
    /// The JSON schema of its arguments, as JSON text.
    pub parameters_schema: RString,
    /// Its risk tier: `read`, `write-low`, `write-high` or `destructive`.
    pub risk_tier: RString,
}

//! The plugin side of the boundary: the root module built from a [`ClassSkill`], every call
//! guarded against panics, and the [`export_skill!`](crate::export_skill) macro.

use std::any::Any;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::OnceLock;

use abi_stable::library::{CheckTypeLayout, LibHeader, RootModuleResult};
use abi_stable::prefix_type::PrefixTypeTrait;
use abi_stable::std_types::{RErr, ROk, ROption, RResult, RStr, RString, RVec, Tuple2};
use skillful_core::DeclaredRisk;

use crate::class::{ClassSkill, Resource, ResourceValue, Script};
use crate::ffi::{FrontmatterInfo, ResourceInfo, ScriptInfo, SkillPlugin, SkillPluginRef};

/// The name of the symbol abi_stable looks a root module up by; `export_skill!` exports the
/// [`LibHeader`] under it.
#[macro_export]
#[doc(hidden)]
macro_rules! __root_module_loader_name {
    () => {
        "_1as_0lib_1header_0root_bmodule_bloader"
    };
}

/// Exports a [`ClassSkill`] as the root module of a plugin library (a `cdylib`).
///
/// Write it once, at the top level of the plugin crate: `export_skill!(MySkill);`. The type is
/// built with `Default` on the host's first call; every call into it catches panics and returns
/// them to the host as errors (a plugin must keep the default `panic = "unwind"`).
///
/// # Example
/// ```
/// use skillful_plugin_abi::{ClassSkill, SkillFrontmatter, export_skill};
///
/// #[derive(Default)]
/// struct Greeter;
///
/// impl ClassSkill for Greeter {
///     fn frontmatter(&self) -> SkillFrontmatter {
///         SkillFrontmatter::new("greeter", "Greets people by name.")
///     }
///     fn instructions(&self) -> String {
///         "Greet the user warmly.".into()
///     }
/// }
///
/// export_skill!(Greeter);
/// ```
#[macro_export]
macro_rules! export_skill {
    ($skill:ty) => {
        const _: () = {
            struct Export;

            impl $crate::__private::Export for Export {
                type Skill = $skill;

                fn cell() -> &'static ::std::sync::OnceLock<$crate::__private::Prepared<$skill>> {
                    static PREPARED: ::std::sync::OnceLock<$crate::__private::Prepared<$skill>> =
                        ::std::sync::OnceLock::new();
                    &PREPARED
                }
            }

            #[unsafe(export_name = $crate::__root_module_loader_name!())]
            static ROOT_MODULE_LOADER: $crate::__private::LibHeader =
                $crate::__private::lib_header::<Export>();
        };
    };
}

/// Ties a plugin's [`ClassSkill`] to the storage of its prepared form; implemented by
/// [`export_skill!`](crate::export_skill) only.
pub trait Export: 'static {
    /// The exported skill.
    type Skill: ClassSkill;

    /// Where the prepared skill lives once built.
    fn cell() -> &'static OnceLock<Prepared<Self::Skill>>;
}

/// A skill with its frontmatter, resources and scripts built, as the exported calls serve it.
pub struct Prepared<S> {
    skill: S,
    frontmatter: FrontmatterInfo,
    instructions: RString,
    resources: Vec<Resource<S>>,
    scripts: Vec<Script<S>>,
}

impl<S> std::fmt::Debug for Prepared<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Prepared")
            .field("frontmatter", &self.frontmatter)
            .field("resources", &self.resources)
            .field("scripts", &self.scripts)
            .finish_non_exhaustive()
    }
}

impl<S: ClassSkill> Prepared<S> {
    fn new() -> Result<Self, String> {
        let skill = S::default();
        let frontmatter = skill.frontmatter();
        let (declared, _) = DeclaredRisk::from_metadata(&frontmatter.metadata);
        let mut scripts = skill.scripts();
        for script in &mut scripts {
            script.risk.get_or_insert(declared.script(&script.name));
        }
        let extra_json = serde_json::to_string(&frontmatter.extra)
            .map_err(|error| format!("its frontmatter's extra keys are not JSON: {error}"))?;
        Ok(Self {
            frontmatter: FrontmatterInfo {
                name: frontmatter.name.into(),
                description: frontmatter.description.into(),
                license: frontmatter.license.map(RString::from).into(),
                compatibility: frontmatter.compatibility.map(RString::from).into(),
                allowed_tools: frontmatter
                    .allowed_tools
                    .map(|tools| tools.into_iter().map(RString::from).collect::<RVec<_>>())
                    .into(),
                metadata: frontmatter
                    .metadata
                    .into_iter()
                    .map(|(key, value)| Tuple2(key.into(), value.into()))
                    .collect(),
                extra_json: extra_json.into(),
            },
            instructions: skill.instructions().into(),
            resources: skill.resources(),
            scripts,
            skill,
        })
    }

    fn read(&self, name: &str) -> Result<String, String> {
        let resource = self
            .resources
            .iter()
            .find(|resource| resource.name == name)
            .ok_or_else(|| format!("the skill has no resource named '{name}'"))?;
        match &resource.value {
            ResourceValue::Text(text) => Ok(text.clone()),
            ResourceValue::Dynamic(read) => read(&self.skill),
        }
    }

    fn run(&self, name: &str, arguments: &str) -> Result<String, String> {
        let script = self
            .scripts
            .iter()
            .find(|script| script.name == name)
            .ok_or_else(|| format!("the skill has no script named '{name}'"))?;
        (script.run)(&self.skill, arguments)
    }
}

/// The prepared skill of `E`, built on first use.
fn prepared<E: Export>() -> Result<&'static Prepared<E::Skill>, String> {
    let cell = E::cell();
    if let Some(prepared) = cell.get() {
        return Ok(prepared);
    }
    let built = Prepared::new()?;
    Ok(cell.get_or_init(|| built))
}

/// Runs the author's code, turning an `Err` or a panic into an error for the host.
fn guard<T>(doing: &str, call: impl FnOnce() -> Result<T, String>) -> RResult<T, RString> {
    match catch_unwind(AssertUnwindSafe(call)) {
        Ok(Ok(value)) => ROk(value),
        Ok(Err(message)) => RErr(message.into()),
        Err(payload) => {
            RErr(format!("the plugin panicked {doing}: {}", panic_message(&*payload)).into())
        }
    }
}

/// The message a panic carried, when it is text; `(no message)` otherwise: the rule of
/// `skillful_fs::blocking::panic_message`, kept here so that a plugin links no
/// `skillful-fs` (its tokio, `sha2` and `rustix` with it).
fn panic_message(payload: &(dyn Any + Send)) -> &str {
    payload
        .downcast_ref::<&str>()
        .copied()
        .or_else(|| payload.downcast_ref::<String>().map(String::as_str))
        .unwrap_or("(no message)")
}

fn optional(text: &Option<String>) -> ROption<RString> {
    text.as_deref().map(RString::from).into()
}

extern "C" fn frontmatter<E: Export>() -> RResult<FrontmatterInfo, RString> {
    guard("describing its skill", || {
        Ok(prepared::<E>()?.frontmatter.clone())
    })
}

extern "C" fn instructions<E: Export>() -> RResult<RString, RString> {
    guard("describing its skill", || {
        Ok(prepared::<E>()?.instructions.clone())
    })
}

extern "C" fn resources<E: Export>() -> RResult<RVec<ResourceInfo>, RString> {
    guard("listing its resources", || {
        Ok(prepared::<E>()?
            .resources
            .iter()
            .map(|resource| ResourceInfo {
                name: resource.name.as_str().into(),
                description: optional(&resource.description),
                text: match &resource.value {
                    ResourceValue::Text(text) => ROption::RSome(text.as_str().into()),
                    ResourceValue::Dynamic(_) => ROption::RNone,
                },
            })
            .collect())
    })
}

extern "C" fn read_resource<E: Export>(name: RStr<'_>) -> RResult<RString, RString> {
    let doing = format!("reading resource '{name}'");
    guard(&doing, || {
        prepared::<E>()?.read(name.as_str()).map(RString::from)
    })
}

extern "C" fn scripts<E: Export>() -> RResult<RVec<ScriptInfo>, RString> {
    guard("listing its scripts", || {
        Ok(prepared::<E>()?
            .scripts
            .iter()
            .map(|script| ScriptInfo {
                name: script.name.as_str().into(),
                description: optional(&script.description),
                parameters_schema: script.schema.to_string().into(),
                risk_tier: script
                    .risk
                    .unwrap_or(skillful_core::RiskTier::SCRIPT_DEFAULT)
                    .as_str()
                    .into(),
            })
            .collect())
    })
}

extern "C" fn run_script<E: Export>(
    name: RStr<'_>,
    arguments: RStr<'_>,
) -> RResult<RString, RString> {
    let doing = format!("running script '{name}'");
    guard(&doing, || {
        prepared::<E>()?
            .run(name.as_str(), arguments.as_str())
            .map(RString::from)
    })
}

fn root_module<E: Export>() -> SkillPluginRef {
    SkillPlugin {
        frontmatter: frontmatter::<E>,
        instructions: instructions::<E>,
        resources: resources::<E>,
        read_resource: read_resource::<E>,
        scripts: scripts::<E>,
        run_script: run_script::<E>,
    }
    .leak_into_prefix()
}

extern "C" fn load_root_module<E: Export>() -> RootModuleResult {
    abi_stable::library::__call_root_module_loader(root_module::<E>)
}

/// The header abi_stable finds in a plugin library: it checks the interface version and layout,
/// then builds the root module of `E` on the host's first load.
pub const fn lib_header<E: Export>() -> LibHeader {
    // SAFETY: `load_root_module` returns the `SkillPluginRef` of `root_module`, erased by
    // abi_stable's own `__call_root_module_loader`, as `from_constructor` requires.
    unsafe {
        LibHeader::from_constructor::<SkillPluginRef>(load_root_module::<E>, CheckTypeLayout::Yes)
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicBool, Ordering};

    use schemars::JsonSchema;
    use serde::Deserialize;

    use super::*;
    use crate::SkillFrontmatter;

    /// Panics while it is built until `BUILDS` is set.
    #[derive(Debug)]
    struct Flaky;

    static BUILDS: AtomicBool = AtomicBool::new(false);

    impl Default for Flaky {
        fn default() -> Self {
            assert!(BUILDS.load(Ordering::SeqCst), "not yet");
            Flaky
        }
    }

    #[derive(Deserialize, JsonSchema)]
    struct Number {
        n: i64,
    }

    impl Flaky {
        fn half(&self, number: Number) -> Result<String, String> {
            if number.n % 2 == 0 {
                Ok((number.n / 2).to_string())
            } else {
                Err(format!("{} is odd", number.n))
            }
        }
    }

    impl ClassSkill for Flaky {
        fn frontmatter(&self) -> SkillFrontmatter {
            let mut frontmatter = SkillFrontmatter::new("flaky", "Flaky.");
            frontmatter
                .metadata
                .insert("risk".into(), "write-low".into());
            frontmatter
        }
        fn instructions(&self) -> String {
            "Halve numbers.".into()
        }
        fn resources(&self) -> Vec<Resource<Self>> {
            vec![Resource::dynamic("odd", |_: &Self| {
                Err::<String, _>("no odd resource")
            })]
        }
        fn scripts(&self) -> Vec<Script<Self>> {
            vec![Script::new("half", "Halves an even number.", Self::half)]
        }
    }

    struct FlakyExport;

    impl Export for FlakyExport {
        type Skill = Flaky;
        fn cell() -> &'static OnceLock<Prepared<Flaky>> {
            static PREPARED: OnceLock<Prepared<Flaky>> = OnceLock::new();
            &PREPARED
        }
    }

    #[test]
    fn a_skill_that_panics_while_built_is_an_error_and_is_built_again_on_the_next_call() {
        let module = root_module::<FlakyExport>();
        let failed = (module.frontmatter())().into_result().unwrap_err();
        assert!(
            failed.starts_with("the plugin panicked describing its skill: not yet"),
            "{failed}"
        );

        BUILDS.store(true, Ordering::SeqCst);
        let frontmatter = (module.frontmatter())().into_result().unwrap();
        assert_eq!(frontmatter.name.as_str(), "flaky");
        assert_eq!(frontmatter.extra_json.as_str(), "{}");
        let scripts = (module.scripts())().into_result().unwrap();
        assert_eq!(
            scripts[0].risk_tier.as_str(),
            "write-low",
            "the metadata's tier applies"
        );
        assert!(scripts[0].parameters_schema.contains(r#""required":["n"]"#));

        let run = |arguments: &str| {
            (module.run_script())(RStr::from("half"), RStr::from(arguments)).into_result()
        };
        assert_eq!(run(r#"{"n": 8}"#).unwrap().as_str(), "4");
        assert_eq!(run(r#"{"n": 3}"#).unwrap_err().as_str(), "3 is odd");
        assert!(
            run(r#"{"m": 3}"#)
                .unwrap_err()
                .starts_with("invalid arguments: missing field `n`")
        );
        let unknown = (module.run_script())(RStr::from("double"), RStr::from("{}")).into_result();
        assert_eq!(
            unknown.unwrap_err().as_str(),
            "the skill has no script named 'double'"
        );
        let odd = (module.read_resource())(RStr::from("odd")).into_result();
        assert_eq!(odd.unwrap_err().as_str(), "no odd resource");
        let resources = (module.resources())().into_result().unwrap();
        assert_eq!(resources[0].text, ROption::RNone);
    }

    #[test]
    fn the_exported_symbol_is_the_one_abi_stable_looks_up() {
        assert_eq!(
            crate::__root_module_loader_name!(),
            abi_stable::library::ROOT_MODULE_LOADER_NAME
        );
    }
}

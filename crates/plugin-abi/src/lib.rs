//! The stable interface between an skillful host and a *class skill* compiled as a plugin
//! library (`.so`, `.dll`, `.dylib`), built on [`abi_stable`] 0.11, and the one macro a plugin
//! author needs: [`export_skill!`].
//!
//! A plugin author writes an ordinary Rust type implementing [`ClassSkill`]: frontmatter,
//! instructions, resources (fixed text, or a method evaluated on every read) and scripts (methods
//! over a `serde` argument type whose JSON schema comes from `schemars`). The macro turns it into
//! the [`ffi::SkillPlugin`] root module; the author never touches an FFI type. Every exported call
//! catches panics of the author's code and returns them as errors, so a panicking plugin never
//! takes the host down.
//!
//! This crate owns the boundary and nothing else: **it knows nothing of loading libraries,
//! async runtimes, the provider or the model**. `skillful-plugin-host` loads plugins.
//!
//! # Example
//! A plugin crate (`crate-type = ["cdylib"]`, depending on this crate, `serde` and `schemars`):
//! ```
//! use schemars::JsonSchema;
//! use serde::Deserialize;
//! use skillful_plugin_abi::{ClassSkill, Resource, RiskTier, Script, SkillFrontmatter, export_skill};
//!
//! #[derive(Default)]
//! struct Greeter;
//!
//! #[derive(Deserialize, JsonSchema)]
//! struct GreetArgs {
//!     /// Who to greet.
//!     name: String,
//! }
//!
//! impl Greeter {
//!     fn greet(&self, args: GreetArgs) -> Result<String, String> {
//!         Ok(format!("Hello, {}!", args.name))
//!     }
//! }
//!
//! impl ClassSkill for Greeter {
//!     fn frontmatter(&self) -> SkillFrontmatter {
//!         SkillFrontmatter::new("greeter", "Greets people by name.")
//!     }
//!     fn instructions(&self) -> String {
//!         "Read `style`, then run `greet`.".into()
//!     }
//!     fn resources(&self) -> Vec<Resource<Self>> {
//!         vec![Resource::text("style", "Be warm and brief.")]
//!     }
//!     fn scripts(&self) -> Vec<Script<Self>> {
//!         vec![Script::new("greet", "Greets someone.", Self::greet).with_risk_tier(RiskTier::Read)]
//!     }
//! }
//!
//! export_skill!(Greeter);
//! ```
//!
//! # Version policy
//! The interface version is this crate's version ([`INTERFACE_VERSION`]). A host loads a plugin
//! when all of these hold, and otherwise refuses it with an error naming the file and the version
//! to rebuild against:
//!
//! - both use `abi_stable` 0.11 (its own header check);
//! - the plugin's interface version has the host's major version — for `0.y.z`, the same `y` —
//!   and is not older in its minor version (`0.1.3` hosts load `0.1.x` plugins; a `0.2` plugin
//!   needs a `0.2` host);
//! - the root module's layout matches, as abi_stable checks it type by type. Within one
//!   interface version only fields appended after the last prefix field may be added; such
//!   fields are read through accessors that return `Option`, so older plugins still load.
//!
//! Changing or removing anything that crosses the boundary is a new interface version
//! (`0.y` → `0.y+1`): every plugin must be rebuilt.

mod class;
mod export;
pub mod ffi;

pub use class::{ClassSkill, Resource, Script};
pub use ffi::INTERFACE_VERSION;
pub use skillful_core::{RiskTier, SkillFrontmatter};

/// What [`export_skill!`] expands to; not part of the public interface.
#[doc(hidden)]
pub mod __private {
    pub use crate::export::{Export, Prepared, lib_header};
    pub use abi_stable::library::LibHeader;
}

#[cfg(test)]
mod tests {
    /// A plugin links this crate, the core and its own dependencies: of the workspace the interface
    /// links the core alone, never the host, and no async runtime.
    #[test]
    fn the_interface_links_the_core_alone_and_no_runtime() {
        let manifest = include_str!("../Cargo.toml");
        assert_eq!(
            skillful_test_support::skillful_dependencies(manifest),
            ["skillful-core"]
        );
        let dependencies = skillful_test_support::dependencies(manifest);
        for runtime in ["tokio", "async-std", "smol", "futures"] {
            assert!(
                !dependencies.iter().any(|name| name == runtime),
                "{runtime}"
            );
        }
    }
}

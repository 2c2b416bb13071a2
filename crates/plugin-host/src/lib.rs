//! Loads class-skill plugins — libraries built on `skillful-plugin-abi` (`lib<name>.so`,
//! `<name>.dll`, `lib<name>.dylib`) — as [`Skill`](skillful_core::Skill)s that the provider serves
//! like any other: [`PluginSkill`] for one file, [`PluginSkillsSource`] for files and
//! directories as a [`SkillsSource`](skillful_core::SkillsSource).
//!
//! Several different plugins load into one process side by side. Calls into a plugin (dynamic
//! resources, scripts) run on tokio's blocking pool, never on the async runtime's threads. A
//! panic inside a plugin comes back as an error (the plugin side catches it); the host keeps
//! serving. A file that is not a library, a library that is not a plugin, and a plugin built
//! against an incompatible interface are each a typed [`PluginError`] naming the file and what to
//! do; the other plugins still load. A plugin's frontmatter goes through the workspace's one
//! validator, and the provider renders it the way it renders every skill.
//!
//! This crate owns loading and calling plugins. **It knows nothing of the provider, the model or
//! the command line**, and nothing of how plugins are built.
//!
//! # Version policy
//! A plugin loads when it was built against `skillful-plugin-abi` with the host's interface
//! version's `0.y` (from 1.0: its major version) and not an older minor version, with
//! `abi_stable` 0.11, and its root module has the layout the host expects (see
//! [`skillful_plugin_abi`]'s crate documentation). Otherwise [`PluginError::IncompatibleVersion`],
//! [`PluginError::IncompatibleLayout`] or [`PluginError::IncompatibleAbiStable`] says which
//! version to rebuild against ([`INTERFACE_VERSION`]). Loaded libraries are never unloaded.
//!
//! Loading a library runs its initialisation code: load plugins only from directories you trust,
//! as you would run programs only from them.
//!
//! # Example
//! ```no_run
//! use skillful_core::{Skill, SourceContext, SkillsSource};
//! use skillful_plugin_host::PluginSkillsSource;
//!
//! # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
//! let source = PluginSkillsSource::new().dir(".agents/plugins");
//! let load = source.load().await.unwrap();
//! for error in &load.errors {
//!     eprintln!("{error}");
//! }
//! for skill in source.skills(&SourceContext::default()).await.unwrap() {
//!     println!("{}: {}", skill.frontmatter().name, skill.origin());
//! }
//! # });
//! ```

#![forbid(unsafe_code)]

mod error;
mod skill;
mod source;
mod trust;

pub use error::{LayoutMismatch, PluginError};
pub use skill::PluginSkill;
pub use skillful_plugin_abi::INTERFACE_VERSION;
pub use source::{PluginLoad, PluginSkillsSource, is_plugin_file_name, plugin_files};
pub use trust::check_loadable;

//! How a host composes its skills, so that every embedder gets the same answer the `skills`
//! command does: roots by scope (explicit, project, user, admin) with precedence, trust of
//! project roots, plugins only from places the user named, enable/disable settings at user and
//! project level, and file, MCP, plugin and inline skills in one [`SkillsSource`] for the
//! provider.
//!
//! - [`SkillsConfig`] says what to compose; [`Composition`] is the result: a source whose skills
//!   each have one name ([`Composition::source`]), and [`Composition::load`] for listings that
//!   also show what was disabled or shadowed and why; `Composition::watch` (feature `watch`)
//!   keeps its file skills live for long-running hosts (a watcher on the roots,
//!   `skillful-watch`).
//! - [`TrustStore`] records the project directories the user trusts, each bound to its identity
//!   (owner, device, inode); an untrusted project's skills, plugins and settings are not read (a
//!   [`Note`] says how to trust it), and a project of another user's or in a directory every
//!   user may write in is refused ([`Risk`]).
//! - [`Settings`] reads and edits the settings files (`skills enable`/`disable`).
//! - [`ListedSkill`] is the one shape of a skill in a listing (`skills list --json`).
//!
//! It knows how the pieces fit; it does not parse `SKILL.md`, walk directories, speak MCP or load
//! libraries (the crates it composes do), and it knows nothing of prompts, tools or models. Its
//! rules of names are `skillful-inline`'s pipeline's (`skillful_inline::Precedence`: order by
//! scope, a disabled skill claims no name, the first claim wins), so a host that combines
//! sources with `skillful_inline::SkillsSourceBuilder` gets the same answer.
//!
//! Three features, all default, add what needs heavy dependencies: `mcp` (MCP servers,
//! [`SkillsConfig::mcp_server`], [`McpServer`] with its checked [`McpLabel`], and
//! [`McpServers`], the servers a command line names with their default labels and tokens:
//! rmcp, reqwest, zip), `plugins` (class-skill plugins,
//! [`SkillsConfig::plugins`]: abi_stable) and `watch` (`Composition::watch`: skillful-watch,
//! notify). Without `plugins`, plugin directories named in the settings are not opened and each
//! is a [`Note`]. Skills are checked against their `skills-lock.json` with `skillful-lockfile`
//! (the format alone: no installer, scanner or ICU collation is linked).
//!
//! [`SkillsSource`]: skillful_core::SkillsSource

#![forbid(unsafe_code)]

mod compose;
mod environment;
mod error;
mod listing;
mod locked;
#[cfg(feature = "mcp")]
mod mcp;
mod safety;
mod settings;
mod trust;

pub use compose::{Composition, Entry, Loaded, Note, SkillsConfig, Status, require_trusted};
pub use environment::{
    ADMIN_SKILLS_VARIABLE, AGENTS_DIR, DEFAULT_ADMIN_SKILLS, Environment, PROJECT_CONFIG_FILE,
    Project, USER_CONFIG_FILE,
};
pub use error::{ConfigError, shown_path};
pub use listing::ListedSkill;
#[cfg(feature = "mcp")]
pub use mcp::{McpError, McpLabel, McpServer, McpServers};
pub use safety::Risk;
pub use settings::{AGENT_MODES, Enablement, Settings, SettingsLevel};
pub use trust::{
    DirIdentity, TRUST_FILE, TRUST_FORMAT_VERSION, TrustEntry, TrustListing, TrustStore, Trusted,
    TrustedDir, TrustedPlugins, Verdict, plugin_dir_digest,
};

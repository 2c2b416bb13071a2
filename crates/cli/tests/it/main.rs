//! The `skills` command as its users meet it: its arguments, its output, its exit codes and
//! what it leaves on disk, by running the binary. One test binary, one module per command or
//! area.

mod aids;
mod approvals;
mod audit;
mod common;
mod converse;
#[cfg(unix)]
mod doctor;
#[cfg(target_os = "linux")]
mod engine;
mod eval;
#[cfg(target_os = "linux")]
mod eval_workspace;
mod exit_codes;
#[cfg(target_os = "linux")]
mod hardening;
mod inspect;
mod json;
mod live_reload;
mod mcp;
mod mcp_final_form;
mod otel;
mod reference;
mod report;
#[cfg(target_os = "linux")]
mod sandbox;
mod scan;
mod search;
mod serve_audit;
mod serve_auth;
mod sessions;
mod supply;
mod terminal;
mod terminal_channels;
#[cfg(target_os = "linux")]
mod trust;
mod validate;

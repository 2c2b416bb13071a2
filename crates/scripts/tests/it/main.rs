//! The integration tests of `skillful-scripts`, one binary with a module per former test file.
//! `host_environment` is a binary of its own: it sets variables of the process.

mod common;
mod runner;
mod sandbox;
mod skills;

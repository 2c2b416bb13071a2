//! The integration tests of `skillful-discovery`, one binary with a module per former test
//! file. `memory` is a binary of its own: its allocator counts every thread of the process.

mod admitted_files;
mod bounded_reads;
mod common;
mod discovery_tree;
mod discovery_validation;
mod rediscovery;
mod skill_files;
mod validate_paths;

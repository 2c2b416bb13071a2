//! The integration tests of `skillful-manifest`, one binary with a module per former test file.

mod cache;
mod manifest;

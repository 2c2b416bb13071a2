//! The integration tests of `skillful-frontmatter`, one binary with a module per former test file.

mod grammar;
mod limits;
mod pyyaml;
mod roundtrip;
mod validation;

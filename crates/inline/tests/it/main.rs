//! The integration tests of `skillful-inline`, one binary with a module per former test file.

mod pipeline;
mod skill;

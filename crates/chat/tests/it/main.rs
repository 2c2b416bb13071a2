//! The integration tests of `skillful-chat`, one binary with a module per former test file.

mod hardening;
mod openai;

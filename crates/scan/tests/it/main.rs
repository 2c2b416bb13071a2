//! The integration tests of `skillful-scan`, one binary with a module per former test file.

mod archives;
mod baseline;
mod corpora;
mod framing;
mod rules;

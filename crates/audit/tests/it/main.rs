//! The integration tests of `skillful-audit`: one binary, its modules by subject.

mod log;

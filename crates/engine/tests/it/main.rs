//! The integration tests of `skillful-engine`: one binary, its modules by subject.

mod engine;

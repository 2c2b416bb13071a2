//! The integration tests of `skillful-process`: one binary, its modules by subject.

mod process;

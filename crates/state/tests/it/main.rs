//! The integration tests of `skillful-state`: one binary, its modules by subject.

mod inspect;

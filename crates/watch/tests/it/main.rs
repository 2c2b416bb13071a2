//! The integration tests of `skillful-watch`: one binary, its modules by subject.

mod reload;

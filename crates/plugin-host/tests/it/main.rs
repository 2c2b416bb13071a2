//! The integration tests of `skillful-plugin-host`: one binary, its modules by subject.

mod plugins;

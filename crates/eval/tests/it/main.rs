//! The integration tests of `skillful-eval`, through its public API against a deterministic
//! stand-in model on 127.0.0.1 (`skillful-test-server`): what `skills eval` rests on, without the
//! command line.

mod evaluation;

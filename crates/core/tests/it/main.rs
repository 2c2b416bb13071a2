//! The integration tests of `skillful-core`, through its public API: the rules every source of
//! skills applies the same way (validation, declared risk, lifecycle metadata, safe names).

mod rules;

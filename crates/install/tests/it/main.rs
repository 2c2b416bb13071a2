//! The integration tests of `skillful-install`, through its public API: what `skills add`,
//! `verify`, `remove` and `install` rest on, without the command line.

mod installer;

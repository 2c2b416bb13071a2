//! The integration tests of `skillful-report`, through its public API: the page `skills report`
//! writes, made from audit records and eval workspaces given in memory, without the command line.

mod page;

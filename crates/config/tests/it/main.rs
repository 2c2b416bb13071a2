//! The integration tests of `skillful-config`, one binary with a module per former test file.
//! `mcp_servers` is a binary of its own: it sets a variable of the process.

mod compose;
mod live_reload;
mod locked;

//! Child processes of skillful, started one way and ended with everything they started.
//!
//! Every process the host starts goes through this crate: scripts (`skillful-scripts`, which adds
//! the interpreter, the arguments and the sandbox), MCP stdio servers (`skillful-mcp`) and the
//! model engine (`skillful-engine`). It owns:
//!
//! - **the environment**: a child gets only the host variables of an allow-list
//!   ([`DEFAULT_ALLOWED_ENV`], plus the names each caller adds: [`allowed_environment`],
//!   [`filter_environment`]) and what its caller sets, never the host's whole environment, so
//!   secrets such as `OPENAI_API_KEY` stay with the host;
//! - **the process tree**: [`ChildCommand`] starts a supervised child in a process group of its
//!   own and, on Linux, under a reaper of its own (a child subreaper, `reaper.rs`) that kills and
//!   reaps whatever the child leaves running when it exits, even what left the group (`setsid`)
//!   or was orphaned by a double fork; [`Running`] ends the whole tree on a timeout, a stop or a
//!   drop (on other Unix systems the process group, elsewhere the child itself);
//!   [`detached_command`] starts a child meant to outlive its starter (the engine) the same way,
//!   without a reaper, and [`signal_group`] ends its group;
//! - **bounded output**: [`Running::collect`] keeps at most a given number of bytes of each
//!   stream ([`Captured`]), reading and counting the rest so the child never blocks, and stops
//!   reading once the child's processes are gone.
//!
//! It knows processes, not what runs in them: interpreters, sandboxes, protocols, skills and
//! models are its callers' business, and it depends on no other skillful crate.

mod detached;
mod environment;
mod output;
#[cfg(target_os = "linux")]
mod reaper;
mod running;

pub use detached::{Signal, detached_command, process_exists, signal_group};
pub use environment::{DEFAULT_ALLOWED_ENV, allowed_environment, filter_environment};
pub use output::{Captured, OutputObserver};
pub use running::{ChildCommand, Finished, Running, Watch};

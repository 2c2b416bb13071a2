//! The per-user private state of skillful on disk, and the few careful file operations every
//! piece of it needs.
//!
//! - [`private_dir`]: a directory of this user only (created 0700; a symbolic link, a
//!   non-directory or another user's directory refused);
//! - [`per_user_state_dir`]: the platform's per-user state directory for skillful (XDG on Linux);
//! - [`write_atomically`]: a file replaced whole or not at all (a temporary file in the same
//!   directory, mode 0600, fsynced, renamed into place, the directory fsynced);
//! - [`read_regular_file`]: a file read without following a final symbolic link, without
//!   blocking on a FIFO, up to a size cap;
//! - [`FileLock`]: an exclusive advisory lock held until dropped;
//! - [`FileStamp`]: what tells, without reading a file, that it may have changed.
//!
//! It owns no format: callers (the engine's records, the approvals store, session files) decide
//! what the bytes are. It knows nothing of skills, models or agents.

mod atomic;
mod dirs;
mod error;
mod lock;
mod read;
mod stamp;

pub use atomic::write_atomically;
pub use dirs::{per_user_cache_dir, per_user_state_dir, private_dir};
pub use error::StateError;
pub use lock::FileLock;
pub use read::{open_regular_file, read_regular_file};
pub use stamp::FileStamp;

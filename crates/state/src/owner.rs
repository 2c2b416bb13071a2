//! Who owns a file and who may write it: the facts every ownership and permission rule of the
//! workspace looks at (private state, trusted projects, plugin libraries, verified directories).
//! Each rule still says which facts refuse what; the facts are read in one way, here.

use std::fs::Metadata;
use std::os::unix::fs::MetadataExt;

/// The effective user id of this process: the user whose files are "mine".
pub fn current_uid() -> u32 {
    rustix::process::geteuid().as_raw()
}

/// The owner and permission bits of a file or directory.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ownership {
    /// The owner's user id.
    pub uid: u32,
    /// The permission bits, with set-id and sticky (`mode & 0o7777`).
    pub mode: u32,
}

impl Ownership {
    /// The ownership `metadata` describes.
    pub fn of(metadata: &Metadata) -> Self {
        Self::from_raw(metadata.uid(), metadata.mode())
    }

    /// The ownership of a raw `stat` (`st_uid`, `st_mode`; the file type bits are dropped).
    pub fn from_raw(uid: u32, mode: u32) -> Self {
        Self {
            uid,
            mode: mode & 0o7777,
        }
    }

    /// Whether this user ([`current_uid`]) owns it.
    pub fn is_mine(&self) -> bool {
        self.uid == current_uid()
    }

    /// Its owner when that is neither this user nor root.
    pub fn foreign_owner(&self) -> Option<u32> {
        (self.uid != current_uid() && self.uid != 0).then_some(self.uid)
    }

    /// Whether its group or every user may write it (`0o022`).
    pub fn writable_by_others(&self) -> bool {
        self.mode & 0o022 != 0
    }

    /// Whether every user may write it (`0o002`).
    pub fn writable_by_everyone(&self) -> bool {
        self.mode & 0o002 != 0
    }

    /// Whether its sticky bit is set (in a directory: only an entry's owner may remove it).
    pub fn sticky(&self) -> bool {
        self.mode & 0o1000 != 0
    }

    /// Whether anyone but its owner may read, write or enter it (`0o077`).
    pub fn open_to_others(&self) -> bool {
        self.mode & 0o077 != 0
    }
}

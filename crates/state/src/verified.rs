//! Directories reached through checked handles, and files written relative to them.
//!
//! A path names a directory only for as long as nobody renames one of the directories on the
//! way. [`VerifiedDir::open_or_create`] walks a path from `/` one directory handle at a time
//! (never through a link it has not checked), refuses a directory another user could use to
//! swap what lies below it, and keeps the handle; every directory and file below is then made
//! relative to that handle (`mkdirat`, `openat` with `O_NOFOLLOW`, a temporary file created
//! `O_CREAT | O_EXCL` and renamed inside the same directory), so that a link planted meanwhile
//! is never followed.

use std::collections::VecDeque;
use std::ffi::{OsStr, OsString};
use std::os::unix::ffi::OsStrExt;
use std::path::{Component, Path, PathBuf};

use rustix::fs::{AtFlags, FileType, Mode, OFlags};
use rustix::io::Errno;

use crate::{Ownership, StateError, current_uid};

/// How many symbolic links a walk follows (as Linux's `MAXSYMLINKS`).
const MAX_LINKS: usize = 40;

/// A directory of this user, opened through checked handles: every directory on the way to it
/// belongs to this user or root and cannot be written by others (or is sticky, as `/tmp` is);
/// it and everything made through it belong to this user, are not a symbolic link and cannot be
/// written by others.
#[derive(Debug)]
pub struct VerifiedDir {
    fd: rustix::fd::OwnedFd,
    path: PathBuf,
}

/// What a directory is to the walk.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Role {
    /// On the way: this user's or root's; writable by others only when sticky.
    Ancestor,
    /// The directory itself or below it: this user's, writable by nobody else.
    Own,
}

impl VerifiedDir {
    /// Opens the directory `path` (made absolute against the working directory), creating it
    /// and any missing directory on the way with mode 0700. A symbolic link on the way is
    /// followed only when it belongs to this user or root; `path` itself may not be one.
    ///
    /// # Errors
    /// [`StateError::Refused`] naming the directory that is a symbolic link, not a directory,
    /// owned by another user or writable by others, and what to do; [`StateError::Fs`].
    pub fn open_or_create(path: &Path) -> Result<Self, StateError> {
        let absolute = std::path::absolute(path).map_err(|error| StateError::io(path, error))?;
        let mut queue: VecDeque<OsString> = VecDeque::new();
        push_front(&mut queue, &absolute);
        let root = Self::open_root()?;
        let mut chain = vec![root];
        let mut links = 0;
        while let Some(name) = queue.pop_front() {
            if name == ".." {
                if chain.len() > 1 {
                    chain.pop();
                }
                continue;
            }
            let parent = chain.last().expect("the chain holds the root");
            let here = parent.path.join(&name);
            match rustix::fs::statat(&parent.fd, name.as_os_str(), AtFlags::SYMLINK_NOFOLLOW) {
                Ok(stat) if FileType::from_raw_mode(stat.st_mode) == FileType::Symlink => {
                    if queue.is_empty() {
                        return Err(refused(
                            &here,
                            "is a symbolic link; give the directory it leads to, if it is yours",
                        ));
                    }
                    check_owner(
                        &here,
                        Ownership::from_raw(stat.st_uid, stat.st_mode),
                        Role::Ancestor,
                    )?;
                    links += 1;
                    if links > MAX_LINKS {
                        return Err(refused(&here, "leads through too many symbolic links"));
                    }
                    let target = rustix::fs::readlinkat(&parent.fd, name.as_os_str(), Vec::new())
                        .map_err(|error| StateError::io(&here, error.into()))?;
                    let target = PathBuf::from(OsStr::from_bytes(target.as_bytes()));
                    if target.is_absolute() {
                        chain.truncate(1);
                    }
                    push_front(&mut queue, &target);
                    continue;
                }
                Ok(_) => {}
                Err(Errno::NOENT) => make_dir(&parent.fd, &name, &here)?,
                Err(error) => return Err(StateError::io(&here, error.into())),
            }
            let next = parent.open_dir(&name, here, Role::Ancestor)?;
            chain.push(next);
        }
        let dir = chain.pop().expect("the chain holds the root");
        dir.check(Role::Own)?;
        Ok(dir)
    }

    fn open_root() -> Result<Self, StateError> {
        let path = PathBuf::from("/");
        let fd = rustix::fs::open(&path, dir_flags(), Mode::empty())
            .map_err(|error| StateError::io(&path, error.into()))?;
        let dir = Self { fd, path };
        dir.check(Role::Ancestor)?;
        Ok(dir)
    }

    /// The directory's path, as the walk found it (symbolic links on the way resolved).
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The directory `name` inside this one, created with mode 0700 when missing.
    ///
    /// # Errors
    /// As [`create_dir`](Self::create_dir), except that an existing directory of this user is
    /// opened.
    pub fn dir(&self, name: impl AsRef<OsStr>) -> Result<Self, StateError> {
        let name = name.as_ref();
        let here = self.child(name)?;
        match rustix::fs::mkdirat(&self.fd, name, Mode::from_raw_mode(0o700)) {
            Ok(()) | Err(Errno::EXIST) => {}
            Err(error) => return Err(StateError::io(&here, error.into())),
        }
        self.open_dir(name, here, Role::Own)
    }

    /// Creates the new directory `name` inside this one, with mode 0700.
    ///
    /// # Errors
    /// [`StateError::Fs`] (`FsError::Io`) with [`std::io::ErrorKind::AlreadyExists`] when something has that name;
    /// [`StateError::Refused`] for a name that is not one plain file name, or a directory that
    /// is not this user's by the time it is opened.
    pub fn create_dir(&self, name: impl AsRef<OsStr>) -> Result<Self, StateError> {
        let name = name.as_ref();
        let here = self.child(name)?;
        make_dir(&self.fd, name, &here)?;
        self.open_dir(name, here, Role::Own)
    }

    /// Writes `bytes` as the whole of the file `name` inside this directory: into a new
    /// temporary file (`O_CREAT | O_EXCL | O_NOFOLLOW`, mode 0600) in it, flushed to disk, then
    /// renamed over `name` in the same directory, which is flushed too. Whatever had that name
    /// (a file, a symbolic link) is replaced, never written through.
    ///
    /// # Errors
    /// [`StateError::Refused`] for a name that is not one plain file name; [`StateError::Fs`]
    /// (the temporary file is removed).
    pub fn write(&self, name: impl AsRef<OsStr>, bytes: &[u8]) -> Result<(), StateError> {
        let name = name.as_ref();
        let here = self.child(name)?;
        Ok(skillful_fs::write_atomic_at(
            &self.fd, name, &here, bytes, 0o600,
        )?)
    }

    /// The names of the entries of this directory (`.` and `..` left out).
    ///
    /// # Errors
    /// [`StateError::Fs`].
    pub fn entries(&self) -> Result<Vec<OsString>, StateError> {
        let io = |error: Errno| StateError::io(&self.path, error.into());
        let mut names = Vec::new();
        for entry in rustix::fs::Dir::read_from(&self.fd).map_err(io)? {
            let entry = entry.map_err(io)?;
            let name = entry.file_name().to_bytes();
            if name != b"." && name != b".." {
                names.push(OsStr::from_bytes(name).to_os_string());
            }
        }
        Ok(names)
    }

    fn child(&self, name: &OsStr) -> Result<PathBuf, StateError> {
        crate::child_of(&self.path, name)
    }

    fn open_dir(&self, name: &OsStr, here: PathBuf, role: Role) -> Result<Self, StateError> {
        let fd =
            rustix::fs::openat(&self.fd, name, dir_flags(), Mode::empty()).map_err(|error| {
                match error {
                    Errno::LOOP => refused(&here, "is a symbolic link; remove it"),
                    Errno::NOTDIR => {
                        refused(&here, "is not a directory; remove it or choose another")
                    }
                    error => StateError::io(&here, error.into()),
                }
            })?;
        let dir = Self { fd, path: here };
        dir.check(role)?;
        Ok(dir)
    }

    fn check(&self, role: Role) -> Result<(), StateError> {
        let stat = rustix::fs::fstat(&self.fd)
            .map_err(|error| StateError::io(&self.path, error.into()))?;
        let ownership = Ownership::from_raw(stat.st_uid, stat.st_mode);
        check_owner(&self.path, ownership, role)?;
        let mode = ownership.mode;
        if ownership.writable_by_others() && (role == Role::Own || !ownership.sticky()) {
            return Err(refused(
                &self.path,
                format!(
                    "is writable by other users (mode {mode:o}), who could replace what lies \
                     below it; run `chmod go-w` on it or choose a directory only you can write"
                ),
            ));
        }
        Ok(())
    }
}

fn dir_flags() -> OFlags {
    OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC
}

/// Puts the components of `path` (after its root) at the front of `queue`, in order.
fn push_front(queue: &mut VecDeque<OsString>, path: &Path) {
    let names: Vec<OsString> = path
        .components()
        .filter_map(|component| match component {
            Component::Normal(name) => Some(name.to_os_string()),
            Component::ParentDir => Some(OsString::from("..")),
            Component::RootDir | Component::Prefix(_) | Component::CurDir => None,
        })
        .collect();
    for name in names.into_iter().rev() {
        queue.push_front(name);
    }
}

fn make_dir(parent: &rustix::fd::OwnedFd, name: &OsStr, here: &Path) -> Result<(), StateError> {
    rustix::fs::mkdirat(parent, name, Mode::from_raw_mode(0o700))
        .map_err(|error| StateError::io(here, error.into()))
}

fn check_owner(path: &Path, ownership: Ownership, role: Role) -> Result<(), StateError> {
    let me = current_uid();
    let owner = ownership.uid;
    if owner == me || (owner == 0 && role == Role::Ancestor) {
        return Ok(());
    }
    Err(refused(
        path,
        format!(
            "is owned by another user (uid {owner}, not {me}), who could replace what lies below \
             it; choose a directory of your own"
        ),
    ))
}

fn refused(path: &Path, reason: impl Into<String>) -> StateError {
    StateError::Refused {
        path: path.to_path_buf(),
        reason: reason.into(),
    }
}

#[cfg(test)]
mod tests {
    use std::io;
    use std::os::unix::fs::{MetadataExt, PermissionsExt};

    use super::*;

    #[test]
    fn a_new_tree_is_private_and_a_planted_link_is_replaced_not_followed() {
        let temp = tempfile::tempdir().unwrap();
        let dir = VerifiedDir::open_or_create(&temp.path().join("a/b")).unwrap();
        assert_eq!(dir.path(), temp.path().join("a/b"));
        for created in ["a", "a/b"] {
            let mode = std::fs::metadata(temp.path().join(created)).unwrap().mode();
            assert_eq!(mode & 0o777, 0o700, "{created}");
        }
        let run = dir.create_dir("run").unwrap();
        assert!(matches!(
            dir.create_dir("run"),
            Err(StateError::Fs(skillful_fs::FsError::Io { source, .. })) if source.kind() == io::ErrorKind::AlreadyExists
        ));
        let target = temp.path().join("victim.txt");
        std::fs::write(&target, "keep").unwrap();
        std::os::unix::fs::symlink(&target, run.path().join("answer.md")).unwrap();
        run.write("answer.md", b"answer").unwrap();
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "keep");
        let answer = run.path().join("answer.md");
        assert_eq!(std::fs::read_to_string(&answer).unwrap(), "answer");
        assert_eq!(std::fs::metadata(&answer).unwrap().mode() & 0o777, 0o600);
        assert_eq!(run.entries().unwrap(), [OsString::from("answer.md")]);
        for name in ["../x", "a/b", ".", ""] {
            assert!(
                matches!(run.write(name, b""), Err(StateError::Refused { .. })),
                "{name}"
            );
        }
    }

    #[test]
    fn a_linked_or_loose_directory_is_refused_and_a_link_on_the_way_is_followed() {
        let temp = tempfile::tempdir().unwrap();
        let real = temp.path().join("real");
        std::fs::create_dir(&real).unwrap();
        let link = temp.path().join("link");
        std::os::unix::fs::symlink(&real, &link).unwrap();
        let error = VerifiedDir::open_or_create(&link).unwrap_err().to_string();
        assert!(error.contains("is a symbolic link"), "{error}");
        let below = VerifiedDir::open_or_create(&link.join("ws")).unwrap();
        assert_eq!(below.path(), real.join("ws"));

        std::fs::set_permissions(&real, std::fs::Permissions::from_mode(0o777)).unwrap();
        let error = VerifiedDir::open_or_create(&real).unwrap_err().to_string();
        assert!(error.contains("writable by other users"), "{error}");
        let error = VerifiedDir::open_or_create(&real.join("ws"))
            .unwrap_err()
            .to_string();
        assert!(error.contains("writable by other users"), "{error}");
        // Sticky, as /tmp is: others cannot rename what is ours in it.
        std::fs::set_permissions(&real, std::fs::Permissions::from_mode(0o1777)).unwrap();
        VerifiedDir::open_or_create(&real.join("ws")).unwrap();
        assert!(VerifiedDir::open_or_create(&real).is_err());
    }
}

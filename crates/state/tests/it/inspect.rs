//! `inspect_private` over real directories and files: it names what others could write, and
//! changes nothing.

#![cfg(unix)]

use std::fs;
use std::os::unix::fs::PermissionsExt;

use skillful_state::{PathState, inspect_private};

fn chmod(path: &std::path::Path, mode: u32) {
    fs::set_permissions(path, fs::Permissions::from_mode(mode)).unwrap();
}

#[test]
fn a_state_directory_others_can_write_is_unsafe_and_left_as_it_is() {
    let temp = tempfile::tempdir().unwrap();
    let state = temp.path().join("state");
    assert_eq!(inspect_private(&state, true).unwrap(), PathState::Missing);
    assert!(!state.exists(), "nothing is created");

    fs::create_dir(&state).unwrap();
    chmod(&state, 0o700);
    assert_eq!(inspect_private(&state, true).unwrap(), PathState::Private);

    chmod(&state, 0o755);
    assert_eq!(
        inspect_private(&state, true).unwrap(),
        PathState::Readable { mode: 0o755 }
    );

    chmod(&state, 0o777);
    let found = inspect_private(&state, true).unwrap();
    assert_eq!(
        found,
        PathState::Unsafe {
            path: state.clone(),
            reason: "is writable by others (mode 0777)".into()
        }
    );
    assert!(found.is_unsafe());
    assert_eq!(
        fs::metadata(&state).unwrap().permissions().mode() & 0o777,
        0o777,
        "nothing is repaired"
    );
}

#[test]
fn a_parent_others_can_write_links_and_wrong_kinds_are_unsafe() {
    let temp = tempfile::tempdir().unwrap();
    let open = temp.path().join("open");
    let file = open.join("trusted.toml");
    fs::create_dir(&open).unwrap();
    fs::write(&file, "trusted = []\n").unwrap();
    chmod(&file, 0o600);
    chmod(&open, 0o777);
    match inspect_private(&file, false).unwrap() {
        PathState::Unsafe { path, reason } => {
            assert_eq!(path, open);
            assert!(
                reason.contains("writable by others (mode 0777)"),
                "{reason}"
            );
        }
        other => panic!("{other:?}"),
    }
    chmod(&open, 0o1777);
    assert_eq!(
        inspect_private(&file, false).unwrap(),
        PathState::Private,
        "a sticky directory (as /tmp) is not a way in"
    );
    chmod(&open, 0o700);

    let link = open.join("link.toml");
    std::os::unix::fs::symlink(&file, &link).unwrap();
    assert!(matches!(
        inspect_private(&link, false).unwrap(),
        PathState::Unsafe { reason, .. } if reason == "is a symbolic link"
    ));
    assert!(matches!(
        inspect_private(&open, false).unwrap(),
        PathState::Unsafe { reason, .. } if reason == "is not a regular file"
    ));
    assert!(matches!(
        inspect_private(&file, true).unwrap(),
        PathState::Unsafe { reason, .. } if reason == "is not a directory"
    ));
}

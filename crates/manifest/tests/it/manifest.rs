//! Manifests and vercel-labs/skills' `computedHash` of real directories, checked against values
//! computed independently (Python's hashlib, Node's `localeCompare` and `crypto`).

use std::fs;
use std::os::unix::fs::symlink;
use std::path::Path;
use std::process::Command;

use skillful_manifest::{EntryKind, Limits, Manifest, ManifestError};

fn write(dir: &Path, relative: &str, bytes: &[u8]) {
    let path = dir.join(relative);
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, bytes).unwrap();
}

fn python(script: &str, dir: &Path) -> String {
    let output = Command::new("python3")
        .arg("-c")
        .arg(script)
        .arg(dir)
        .output()
        .expect("python3 runs");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).unwrap().trim().to_owned()
}

fn skill_tree() -> tempfile::TempDir {
    let temp = tempfile::tempdir().unwrap();
    let dir = temp.path();
    write(
        dir,
        "SKILL.md",
        b"---\nname: demo\ndescription: d\n---\nBody\n",
    );
    write(dir, "scripts/run.py", b"print('hi')\n");
    write(dir, "references/a b.md", b"");
    write(dir, "Z.md", b"\xef\xbb\xbfBOM\r\n");
    temp
}

#[test]
fn a_manifest_lists_every_file_with_the_digest_python_computes() {
    if !skillful_test_support::program_runs("python3", "install Python 3, e.g. apt install python3")
    {
        return;
    }
    let temp = skill_tree();
    let manifest = Manifest::of_dir(temp.path(), &Limits::default()).unwrap();
    let paths: Vec<_> = manifest.files().iter().map(|e| e.path.as_str()).collect();
    assert_eq!(
        paths,
        ["SKILL.md", "Z.md", "references/a b.md", "scripts/run.py"]
    );
    // The same list and digest, computed by Python from the documented format.
    let expected = python(
        r##"
import hashlib, os, sys
root = sys.argv[1]
files = []
for d, _, names in os.walk(root):
    for n in names:
        p = os.path.join(d, n)
        files.append((os.path.relpath(p, root), open(p, 'rb').read()))
files.sort(key=lambda f: f[0].encode())
h = hashlib.sha256(b"skillful-manifest-v1\n")
lines = []
for rel, data in files:
    digest = hashlib.sha256(data).hexdigest()
    lines.append(f"{rel} {len(data)} {digest}")
    h.update(f"{len(rel.encode())}:{rel} file {len(data)} {digest}\n".encode())
print("|".join(lines) + "#" + h.hexdigest())
"##,
        temp.path(),
    );
    let ours: Vec<_> = manifest
        .files()
        .iter()
        .map(|e| format!("{} {} {}", e.path, e.size, e.sha256))
        .collect();
    assert_eq!(
        format!("{}#{}", ours.join("|"), manifest.digest()),
        expected
    );
}

#[test]
fn the_diff_names_added_removed_and_changed_files() {
    let temp = skill_tree();
    let dir = temp.path();
    let locked = Manifest::of_dir(dir, &Limits::default()).unwrap();
    assert!(
        Manifest::of_dir(dir, &Limits::default())
            .unwrap()
            .diff(&locked)
            .is_empty()
    );

    write(dir, "scripts/run.py", b"print('HI')\n");
    write(dir, "scripts/new.sh", b"echo\n");
    fs::remove_file(dir.join("Z.md")).unwrap();
    let now = Manifest::of_dir(dir, &Limits::default()).unwrap();
    let diff = now.diff(&locked);
    assert_eq!(diff.added, ["scripts/new.sh"]);
    assert_eq!(diff.removed, ["Z.md"]);
    assert_eq!(diff.changed, ["scripts/run.py"]);
    assert_ne!(now.digest(), locked.digest());
}

#[test]
fn a_manifest_round_trips_through_json() {
    let temp = skill_tree();
    symlink("SKILL.md", temp.path().join("README.md")).unwrap();
    let manifest = Manifest::of_dir(temp.path(), &Limits::default()).unwrap();
    let json = serde_json::to_string(&manifest).unwrap();
    assert!(json.contains(r#"{"path":"README.md","kind":"link","size":8,"#));
    assert!(json.contains(r#"{"path":"SKILL.md","size":"#));
    let back: Manifest = serde_json::from_str(&json).unwrap();
    assert_eq!(back, manifest);
    assert_eq!(back.digest(), manifest.digest());
}

#[test]
fn a_link_inside_is_recorded_not_followed_and_a_link_out_is_refused() {
    let temp = skill_tree();
    let dir = temp.path();
    symlink("../SKILL.md", dir.join("scripts/skill.md")).unwrap();
    let manifest = Manifest::of_dir(dir, &Limits::default()).unwrap();
    let link = manifest.get("scripts/skill.md").unwrap();
    assert_eq!(link.kind, EntryKind::Link);
    assert_eq!(link.size, "../SKILL.md".len() as u64);

    let outside = tempfile::tempdir().unwrap();
    write(outside.path(), "secret", b"key");
    symlink(outside.path(), dir.join("references/out")).unwrap();
    let error = Manifest::of_dir(dir, &Limits::default()).unwrap_err();
    assert!(
        matches!(error, ManifestError::LinkEscapes { .. }),
        "{error}"
    );
    assert!(error.to_string().contains("references/out"), "{error}");
    fs::remove_file(dir.join("references/out")).unwrap();

    symlink("../../etc/passwd", dir.join("scripts/up")).unwrap();
    let error = Manifest::of_dir(dir, &Limits::default()).unwrap_err();
    assert!(
        matches!(error, ManifestError::LinkEscapes { .. }),
        "{error}"
    );
    fs::remove_file(dir.join("scripts/up")).unwrap();

    // With `b -> .`, a link whose text stays inside leaves through `b`; a link to a directory
    // and a link to a link are refused too.
    symlink(".", dir.join("b")).unwrap();
    let error = Manifest::of_dir(dir, &Limits::default()).unwrap_err();
    assert!(
        error.to_string().contains("/b"),
        "a link to a directory: {error}"
    );
    fs::remove_file(dir.join("b")).unwrap();
    fs::create_dir(dir.join("b")).unwrap();
    symlink("..", dir.join("b/b")).unwrap();
    symlink("../b/b/../../x", dir.join("scripts/sneaky")).unwrap();
    let error = Manifest::of_dir(dir, &Limits::default()).unwrap_err();
    assert!(
        matches!(error, ManifestError::LinkEscapes { .. }),
        "{error}"
    );
    fs::remove_file(dir.join("scripts/sneaky")).unwrap();
    fs::remove_file(dir.join("b/b")).unwrap();
    symlink("../SKILL.md", dir.join("b/first")).unwrap();
    symlink("first", dir.join("b/second")).unwrap();
    let error = Manifest::of_dir(dir, &Limits::default()).unwrap_err();
    assert!(error.to_string().contains("b/second"), "a chain: {error}");
}

#[test]
fn the_directory_itself_must_not_be_a_link() {
    let temp = skill_tree();
    let parent = tempfile::tempdir().unwrap();
    symlink(temp.path(), parent.path().join("skill")).unwrap();
    let error = Manifest::of_dir(&parent.path().join("skill"), &Limits::default()).unwrap_err();
    assert!(
        matches!(error, ManifestError::NotADirectory { .. }),
        "{error}"
    );
}

#[test]
fn a_fifo_is_refused_without_blocking() {
    let temp = skill_tree();
    let fifo = temp.path().join("scripts/pipe");
    let status = Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(status.success());
    let error = Manifest::of_dir(temp.path(), &Limits::default()).unwrap_err();
    assert!(
        matches!(error, ManifestError::NotARegularFile { .. }),
        "{error}"
    );
}

#[test]
fn limits_bound_files_size_and_depth() {
    let temp = skill_tree();
    let dir = temp.path();
    let few = Limits {
        max_files: 3,
        ..Limits::default()
    };
    let error = Manifest::of_dir(dir, &few).unwrap_err();
    assert!(
        matches!(error, ManifestError::TooManyFiles { limit: 3, .. }),
        "{error}"
    );

    let small = Limits {
        max_file_bytes: 16,
        ..Limits::default()
    };
    let error = Manifest::of_dir(dir, &small).unwrap_err();
    assert!(
        matches!(error, ManifestError::FileTooLarge { .. }),
        "{error}"
    );
    assert!(error.to_string().contains("SKILL.md"), "{error}");

    let total = Limits {
        max_total_bytes: 40,
        ..Limits::default()
    };
    let error = Manifest::of_dir(dir, &total).unwrap_err();
    assert!(matches!(error, ManifestError::TooLarge { .. }), "{error}");

    write(dir, "a/b/c/d.md", b"deep");
    let shallow = Limits {
        max_depth: 2,
        ..Limits::default()
    };
    let error = Manifest::of_dir(dir, &shallow).unwrap_err();
    assert!(
        matches!(error, ManifestError::TooDeep { limit: 2, .. }),
        "{error}"
    );
}

#[test]
fn names_that_are_not_utf8_or_not_safe_are_refused() {
    use std::os::unix::ffi::OsStrExt;
    let temp = skill_tree();
    let bad = temp.path().join(std::ffi::OsStr::from_bytes(b"bad\xff.md"));
    fs::write(&bad, b"x").unwrap();
    let error = Manifest::of_dir(temp.path(), &Limits::default()).unwrap_err();
    assert!(matches!(error, ManifestError::UnsafeName { .. }), "{error}");
    fs::remove_file(&bad).unwrap();

    write(temp.path(), "scripts/line\nbreak", b"x");
    let error = Manifest::of_dir(temp.path(), &Limits::default()).unwrap_err();
    assert!(error.to_string().contains("control character"), "{error}");
}

#[test]
fn case_collisions_are_found() {
    let temp = skill_tree();
    write(temp.path(), "z.md", b"lower");
    let manifest = Manifest::of_dir(temp.path(), &Limits::default()).unwrap();
    assert_eq!(manifest.case_collisions(), [["Z.md", "z.md"]]);
}

/// vercel-labs/skills' `computedHash` (feature `computed-hash`).
#[cfg(feature = "computed-hash")]
mod computed_hash {
    use super::*;
    use skillful_manifest::computed_hash;

    #[test]
    fn computed_hash_matches_the_worked_example() {
        if !skillful_test_support::program_runs(
            "python3",
            "install Python 3, e.g. apt install python3",
        ) {
            return;
        }
        // SKILL.md = "a", references/x.md = "b": SHA-256 of "references/x.mdbSKILL.mda".
        let temp = tempfile::tempdir().unwrap();
        write(temp.path(), "SKILL.md", b"a");
        write(temp.path(), "references/x.md", b"b");
        let expected = python(
            "import hashlib; print(hashlib.sha256(b'references/x.mdbSKILL.mda').hexdigest())",
            temp.path(),
        );
        assert_eq!(
            expected,
            "e232e2bdb740d26ee0164d3e6dc2a2751955f2b865ccd16eb3e53c71b75b881f"
        );
        assert_eq!(
            computed_hash(temp.path(), &Limits::default()).unwrap(),
            expected
        );
    }

    /// A tree whose order under `localeCompare` differs from byte order at every step.
    fn collation_tree() -> tempfile::TempDir {
        let temp = tempfile::tempdir().unwrap();
        let dir = temp.path();
        for (name, bytes) in [
            ("SKILL.md", &b"---\nname: x\n---\n"[..]),
            ("Z.md", b"Z"),
            ("a_b.md", b"1"),
            ("a-b.md", b"2"),
            ("a.md", b"3"),
            ("A.md", b"4"),
            ("a/b.md", b"5"),
            ("ab.md", b"6"),
            ("10.md", b"7"),
            ("9.md", b"8"),
            ("references/x.md", b"\r\n"),
            ("scripts/run.py", b"print()"),
            ("caf\u{e9}.md", b"9"),
            (".git", b"a file named .git is hashed"),
        ] {
            write(dir, name, bytes);
        }
        // Left out: .git and node_modules directories, links.
        write(dir, "node_modules/m/index.js", b"skipped");
        write(dir, "scripts/.git/HEAD", b"skipped");
        symlink("SKILL.md", dir.join("link.md")).unwrap();
        temp
    }

    #[test]
    fn computed_hash_follows_the_documented_order_computed_by_python() {
        if !skillful_test_support::program_runs(
            "python3",
            "install Python 3, e.g. apt install python3",
        ) {
            return;
        }
        let temp = collation_tree();
        // The order of ICU's root collation, written out: punctuation before digits before
        // letters, case-insensitive first, lowercase first on a tie, digits not numeric.
        let order = [
            ".git",
            "10.md",
            "9.md",
            "a_b.md",
            "a-b.md",
            "a.md",
            "A.md",
            "a/b.md",
            "ab.md",
            "caf\u{e9}.md",
            "references/x.md",
            "scripts/run.py",
            "SKILL.md",
            "Z.md",
        ];
        let script = format!(
            "import hashlib, os, sys\nh = hashlib.sha256()\nfor rel in {order:?}:\n    h.update(rel.encode()); h.update(open(os.path.join(sys.argv[1], rel), 'rb').read())\nprint(h.hexdigest())"
        );
        let expected = python(&script, temp.path());
        assert_eq!(
            computed_hash(temp.path(), &Limits::default()).unwrap(),
            expected
        );
    }

    #[test]
    fn computed_hash_matches_node_running_vercels_algorithm() {
        if !skillful_test_support::program_runs("node", "install Node.js, e.g. apt install nodejs")
        {
            return;
        }
        let temp = collation_tree();
        // vercel-labs/skills' algorithm as documented, run by Node (its localeCompare is ICU's).
        let script = r#"
    const fs = require('fs'), path = require('path'), crypto = require('crypto');
    const root = process.argv[1];
    function collect(dir, out) {
      for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
        const full = path.join(dir, e.name);
        if (e.isDirectory()) { if (e.name !== '.git' && e.name !== 'node_modules') collect(full, out); }
        else if (e.isFile()) out.push({ rel: path.relative(root, full).split('\\').join('/'), full });
      }
      return out;
    }
    const files = collect(root, []).sort((a, b) => a.rel.localeCompare(b.rel));
    const h = crypto.createHash('sha256');
    for (const f of files) { h.update(f.rel); h.update(fs.readFileSync(f.full)); }
    console.log(h.digest('hex'));
    "#;
        let output = Command::new("node")
            .env("LANG", "en_US.UTF-8")
            .arg("-e")
            .arg(script)
            .arg(temp.path())
            .output()
            .expect("node runs (apt-get install nodejs)");
        assert!(
            output.status.success(),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
        let expected = String::from_utf8(output.stdout).unwrap().trim().to_owned();
        assert_eq!(
            computed_hash(temp.path(), &Limits::default()).unwrap(),
            expected
        );
    }
}

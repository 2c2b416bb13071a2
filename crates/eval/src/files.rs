//! Files the evaluation reads and writes, kept inside their directories and bounded in size:
//! the skill's files are named by its (untrusted) author, the outputs are written by a model's
//! scripts.

use std::io::Read;
use std::path::{Path, PathBuf};

use skillful_core::names::RelativeName;
use skillful_state::VerifiedDir;

use crate::error::EvalError;

/// The most bytes of one input file copied into a run's working directory.
pub const MAX_INPUT_FILE_BYTES: u64 = 16 * 1024 * 1024;

/// The most bytes of output files shown to the judge, over all of them.
const MAX_JUDGED_OUTPUT_BYTES: u64 = 16 * 1024;

/// The file `path` whole, read as `skillful-fs` reads a file it did not write: a final
/// symbolic link, a FIFO or a device refused ([`EvalError::Fs`]), nothing past `limit` read
/// ([`EvalError::TooLarge`]).
///
/// # Errors
/// [`EvalError::Io`] when it does not exist; [`EvalError::TooLarge`] past `limit`;
/// [`EvalError::Fs`] for a link or a file that is not regular, or one that cannot be read.
pub(crate) fn read_bounded(path: &Path, limit: u64) -> Result<Vec<u8>, EvalError> {
    match skillful_fs::read_bounded(path, limit) {
        Ok(Some(bytes)) => Ok(bytes),
        Ok(None) => Err(EvalError::Io {
            action: "read",
            path: path.to_path_buf(),
            source: std::io::ErrorKind::NotFound.into(),
        }),
        Err(skillful_fs::FsError::TooLarge { path, limit }) => {
            Err(EvalError::TooLarge { path, limit })
        }
        Err(error) => Err(error.into()),
    }
}

/// The regular file `name` (a relative `/`-separated name) inside `dir`, resolved: after every
/// symbolic link it must still lie inside `dir`.
///
/// # Errors
/// Why not, in words.
pub(crate) fn resolve_inside(dir: &Path, name: &str) -> Result<PathBuf, String> {
    RelativeName::new(name).map_err(|unsafe_name| unsafe_name.reason.to_string())?;
    let dir = dir
        .canonicalize()
        .map_err(|error| format!("the skill's directory cannot be resolved ({error})"))?;
    let path = dir
        .join(name.split('/').collect::<PathBuf>())
        .canonicalize()
        .map_err(|error| format!("not found in the skill's directory ({error})"))?;
    if !path.starts_with(&dir) {
        return Err("it leads outside the skill's directory".to_owned());
    }
    if !path.is_file() {
        return Err("not a regular file".to_owned());
    }
    Ok(path)
}

/// Copies the skill's input file `name` into `work_dir`, under its file name.
///
/// # Errors
/// [`EvalError::Spec`] when the file is no longer a regular file inside the skill's
/// directory; [`EvalError::TooLarge`] past [`MAX_INPUT_FILE_BYTES`]; [`EvalError::Io`],
/// [`EvalError::Fs`] or [`EvalError::Files`].
pub(crate) fn copy_input(
    skill_dir: &Path,
    name: &str,
    work_dir: &VerifiedDir,
) -> Result<(), EvalError> {
    let source = resolve_inside(skill_dir, name).map_err(|reason| EvalError::Spec {
        path: skill_dir.join("evals").join("evals.json"),
        reason: format!("file {name:?}: {reason}"),
    })?;
    let bytes = read_bounded(&source, MAX_INPUT_FILE_BYTES)?;
    work_dir.write(source.file_name().unwrap_or_default(), &bytes)?;
    Ok(())
}

/// What a run left in its output directory, for the judge: each regular file's name and size,
/// and the start of the text files, [`MAX_JUDGED_OUTPUT_BYTES`] in all. Symbolic links are named,
/// never followed; subdirectories are not entered.
pub(crate) fn describe_outputs(dir: &Path, skip: &[&str]) -> String {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return "(no output directory)".to_owned();
    };
    let mut entries: Vec<_> = entries.filter_map(Result::ok).collect();
    entries.sort_by_key(std::fs::DirEntry::file_name);
    let mut budget = MAX_JUDGED_OUTPUT_BYTES;
    let mut described = String::new();
    for entry in entries {
        let name = entry.file_name().to_string_lossy().into_owned();
        if skip.contains(&name.as_str()) {
            continue;
        }
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        if !kind.is_file() {
            let what = if kind.is_dir() { "directory" } else { "link" };
            described.push_str(&format!("- {name} ({what})\n"));
            continue;
        }
        let size = entry.metadata().map_or(0, |m| m.len());
        described.push_str(&format!("- {name} ({size} bytes)\n"));
        if budget == 0 {
            continue;
        }
        if let Ok(bytes) = read_prefix(&entry.path(), budget)
            && let Ok(text) = String::from_utf8(bytes)
        {
            budget = budget.saturating_sub(text.len() as u64);
            described.push_str(&format!("```\n{text}\n```\n"));
        }
    }
    if described.is_empty() {
        "(none)".to_owned()
    } else {
        described
    }
}

/// The first `limit` bytes of the regular file `path`, never through a symbolic link swapped in
/// after the listing.
fn read_prefix(path: &Path, limit: u64) -> std::io::Result<Vec<u8>> {
    let Ok(Some((file, _))) = skillful_fs::open_regular_file(path) else {
        return Err(std::io::ErrorKind::InvalidInput.into());
    };
    let mut bytes = Vec::new();
    file.take(limit).read_to_end(&mut bytes)?;
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_outside_the_skill_are_refused() {
        let root = tempfile::tempdir().unwrap();
        let skill = root.path().join("skill");
        std::fs::create_dir_all(skill.join("evals/files")).unwrap();
        std::fs::write(skill.join("evals/files/in.csv"), "a,b").unwrap();
        std::fs::write(root.path().join("secret.txt"), "secret").unwrap();
        #[cfg(unix)]
        std::os::unix::fs::symlink(
            root.path().join("secret.txt"),
            skill.join("evals/files/link.txt"),
        )
        .unwrap();

        assert!(resolve_inside(&skill, "evals/files/in.csv").is_ok());
        assert!(resolve_inside(&skill, "../secret.txt").is_err());
        assert!(resolve_inside(&skill, "/etc/passwd").is_err());
        assert!(resolve_inside(&skill, "evals/files").is_err());
        #[cfg(unix)]
        assert_eq!(
            resolve_inside(&skill, "evals/files/link.txt").unwrap_err(),
            "it leads outside the skill's directory"
        );
    }
}

//! The workspace: where it is by default, and its iterations, made through checked directory
//! handles ([`skillful_state::VerifiedDir`]) so that nobody else can redirect what is written.

use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};
use skillful_state::{Dirs, StateError, VerifiedDir};

use crate::error::EvalError;

/// How many iteration numbers are tried when others take them at the same time.
const MAX_ITERATION_TRIES: u32 = 100;

/// `eval/<name>-<key>` in the state directory of `dirs`, the key the first 16 hexadecimal digits
/// of the SHA-256 of the skill's canonical directory.
pub(crate) fn default_workspace(dirs: &Dirs, name: &str, skill_dir: &Path) -> PathBuf {
    let digest = Sha256::digest(skill_dir.as_os_str().as_encoded_bytes());
    let key = u64::from_be_bytes(digest[..8].try_into().expect("a SHA-256 has 32 bytes"));
    dirs.state().join("eval").join(format!("{name}-{key:016x}"))
}

/// The workspace `chosen` gives the skill `name` among `skills` skills; `None` for the default.
pub(crate) fn placed(chosen: Option<&Path>, skills: usize, name: &str) -> Option<PathBuf> {
    let chosen = chosen?;
    Some(if skills == 1 {
        chosen.to_path_buf()
    } else {
        chosen.join(name)
    })
}

/// Creates the next free `iteration-N` of `workspace` (made private if missing, refused when
/// another user could tamper with it or a directory on the way), refusing a workspace inside the
/// skill's directory (the runs' files would become the skill's resources).
pub(crate) fn new_iteration(workspace: &Path, skill_dir: &Path) -> Result<VerifiedDir, EvalError> {
    let refuse = |reason: String| EvalError::Workspace {
        path: workspace.to_path_buf(),
        reason,
    };
    let inside = |path: &Path| {
        if path.starts_with(skill_dir) {
            Err(refuse(format!(
                "it lies inside the skill's directory {}; choose a directory outside it",
                skill_dir.display()
            )))
        } else {
            Ok(())
        }
    };
    // Checked before anything is created, then again on the path the walk resolved.
    inside(&std::path::absolute(workspace).map_err(|error| refuse(error.to_string()))?)?;
    let dir = VerifiedDir::open_or_create(workspace).map_err(|error| refuse(error.to_string()))?;
    inside(dir.path())?;
    let highest = dir
        .entries()?
        .iter()
        .filter_map(|name| {
            name.to_str()?
                .strip_prefix("iteration-")?
                .parse::<u32>()
                .ok()
        })
        .max()
        .unwrap_or(0);
    for next in highest + 1..=highest + MAX_ITERATION_TRIES {
        match dir.create_dir(format!("iteration-{next}")) {
            Ok(iteration) => return Ok(iteration),
            Err(StateError::Fs(skillful_fs::FsError::Io { source, .. }))
                if source.kind() == std::io::ErrorKind::AlreadyExists => {}
            Err(error) => return Err(error.into()),
        }
    }
    Err(refuse(
        "no free iteration number; remove old iterations".to_owned(),
    ))
}

#[cfg(test)]
mod placement_tests {
    use super::*;
    use crate::evaluate::SkillUnderTest;

    #[test]
    fn a_chosen_workspace_is_the_skills_own_alone_and_holds_one_per_skill_among_several() {
        let chosen = Path::new("/work/evals");
        assert_eq!(placed(Some(chosen), 1, "pdf"), Some(chosen.to_path_buf()));
        assert_eq!(placed(Some(chosen), 2, "pdf"), Some(chosen.join("pdf")));
        assert_eq!(placed(None, 1, "pdf"), None);
    }

    #[tokio::test]
    async fn without_one_the_skill_gets_its_default_workspace() {
        let skill = SkillUnderTest::load(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../examples/skills/unit-converter"
        ))
        .await
        .unwrap();
        let chosen = Path::new("/work/evals");
        assert_eq!(
            skill.workspace(Some(chosen), 3).unwrap(),
            chosen.join("unit-converter")
        );
        assert_eq!(
            skill.workspace(None, 3).unwrap(),
            skill.default_workspace().unwrap()
        );
    }
}

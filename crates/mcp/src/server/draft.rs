//! The draft form Microsoft Agent Framework reads: `skill://index.json` and tar.gz archives.

use skillful_core::SkillError;
use skillful_discovery::FileSkill;

use super::catalog::SCHEME;

/// The URI of the skill `name`'s archive.
pub(super) fn archive_uri(name: &str) -> String {
    format!("{SCHEME}{name}.tar.gz")
}

/// The tar.gz of every file discovery admitted for `skill`.
pub(super) async fn archive(skill: &FileSkill) -> Result<Vec<u8>, SkillError> {
    let mut files = Vec::new();
    for name in skill.file_names() {
        if files.iter().any(|(seen, _)| seen == name) {
            continue;
        }
        files.push((name.to_owned(), skill.read_file(name).await?));
    }
    skillful_fs::blocking::run("packing a skill archive", move || {
        tar_gz(&files)
            .map_err(|error| SkillError::Other(format!("cannot build the archive: {error}")))
    })
    .await
    .map_err(SkillError::other)?
}

/// A gzip-compressed tar of `files` (`/`-separated relative names and their bytes), the same
/// bytes for the same files: no timestamps, owners or modes of the machine that built it.
fn tar_gz(files: &[(String, Vec<u8>)]) -> std::io::Result<Vec<u8>> {
    let encoder = flate2::GzBuilder::new().write(Vec::new(), flate2::Compression::default());
    let mut builder = tar::Builder::new(encoder);
    builder.mode(tar::HeaderMode::Deterministic);
    for (name, bytes) in files {
        let mut header = tar::Header::new_gnu();
        header.set_entry_type(tar::EntryType::Regular);
        header.set_size(bytes.len() as u64);
        header.set_mode(0o644);
        header.set_mtime(0);
        builder.append_data(&mut header, name, bytes.as_slice())?;
    }
    builder.into_inner()?.finish()
}

#[cfg(all(test, feature = "client"))]
mod tests {
    use std::fs;

    use super::*;
    use crate::archive::{ArchiveFormat, ArchiveLimits, extract};

    #[test]
    fn tar_gz_round_trips_and_is_deterministic() {
        let files = vec![
            ("SKILL.md".to_owned(), b"---\nname: a\n---\n".to_vec()),
            ("references/r.md".to_owned(), b"r".to_vec()),
        ];
        let bytes = tar_gz(&files).unwrap();
        assert_eq!(bytes, tar_gz(&files).unwrap());
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("a");
        let limits = ArchiveLimits::default();
        let written = extract(
            &bytes,
            ArchiveFormat::TarGz,
            &target,
            &limits,
            limits.max_total_bytes,
        )
        .unwrap();
        assert_eq!(written, (files[0].1.len() + files[1].1.len()) as u64);
        assert_eq!(fs::read(target.join("references/r.md")).unwrap(), b"r");
    }
}

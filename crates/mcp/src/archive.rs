//! Skill archives: recognising zip and tar.gz, extracting them within limits without ever
//! writing outside the target directory, and building the tar.gz a server serves.

use std::fmt;
use std::fs::{self, OpenOptions};
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};

use flate2::read::GzDecoder;

use skillful_core::names::RelativeName;

/// The container formats a skill archive may use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ArchiveFormat {
    /// A zip file (`PK\x03\x04`), stored or deflated entries.
    Zip,
    /// A gzip-compressed tar file (`\x1f\x8b`).
    TarGz,
}

impl fmt::Display for ArchiveFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ArchiveFormat::Zip => "zip",
            ArchiveFormat::TarGz => "tar.gz",
        })
    }
}

impl ArchiveFormat {
    /// The format of `bytes`: by its magic bytes, else by the MIME type the server gave, else
    /// by the suffix of its URL; `None` for anything else.
    ///
    /// # Example
    /// ```
    /// use skillful_mcp::ArchiveFormat;
    ///
    /// assert_eq!(ArchiveFormat::detect(b"PK\x03\x04...", None, "skill://a"), Some(ArchiveFormat::Zip));
    /// assert_eq!(ArchiveFormat::detect(b"??", Some("application/gzip"), "x"), Some(ArchiveFormat::TarGz));
    /// assert_eq!(ArchiveFormat::detect(b"??", None, "skill://a.TGZ"), Some(ArchiveFormat::TarGz));
    /// assert_eq!(ArchiveFormat::detect(b"??", Some("text/plain"), "skill://a.rar"), None);
    /// ```
    pub fn detect(bytes: &[u8], mime_type: Option<&str>, url: &str) -> Option<Self> {
        if bytes.starts_with(&[0x1f, 0x8b]) {
            return Some(ArchiveFormat::TarGz);
        }
        if bytes.len() >= 4 && bytes.starts_with(b"PK") && matches!(bytes[2], 3 | 5 | 7) {
            return Some(ArchiveFormat::Zip);
        }
        let mime = mime_type.unwrap_or_default().trim().to_ascii_lowercase();
        match mime.as_str() {
            "application/zip" | "application/x-zip-compressed" => return Some(ArchiveFormat::Zip),
            "application/gzip"
            | "application/x-gzip"
            | "application/x-compressed-tar"
            | "application/x-tar+gzip" => return Some(ArchiveFormat::TarGz),
            _ => {}
        }
        let url = url.to_ascii_lowercase();
        if url.ends_with(".zip") {
            Some(ArchiveFormat::Zip)
        } else if url.ends_with(".tar.gz") || url.ends_with(".tgz") {
            Some(ArchiveFormat::TarGz)
        } else {
            None
        }
    }
}

/// How much archives may bring onto the disk: each archive, and all archives of one server in
/// one load ([`McpSkillsSource::load`](crate::McpSkillsSource::load)). The per-archive defaults
/// are the reference's: 1 MiB downloaded, 20 files, 1 MiB uncompressed (counted from the bytes
/// actually written, not from what the archive's headers claim); per server and load, at most
/// 20 archives and 32 MiB unpacked. An archive over a limit is skipped with a warning naming the
/// server, the limit and this field; the other skills are loaded. Set them with
/// [`McpSkillsSourceBuilder::archive_limits`](crate::McpSkillsSourceBuilder::archive_limits):
///
/// ```
/// use skillful_mcp::ArchiveLimits;
///
/// let roomier = ArchiveLimits { max_archives: 50, ..ArchiveLimits::default() };
/// assert_eq!(roomier.max_total_bytes, 32 * 1024 * 1024);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ArchiveLimits {
    /// The largest archive accepted, in bytes, as downloaded.
    pub max_download_bytes: u64,
    /// The most files one archive may hold.
    pub max_files: usize,
    /// The most bytes all files of one archive may hold together, uncompressed.
    pub max_uncompressed_bytes: u64,
    /// The most archive entries of one server unpacked in one load: the entries after them,
    /// in the index's order, are skipped.
    pub max_archives: usize,
    /// The most bytes the archives of one server may unpack to together in one load: an archive
    /// that would pass it is skipped (later, smaller ones may still fit).
    pub max_total_bytes: u64,
}

impl Default for ArchiveLimits {
    fn default() -> Self {
        Self {
            max_download_bytes: 1024 * 1024,
            max_files: 20,
            max_uncompressed_bytes: 1024 * 1024,
            max_archives: 20,
            max_total_bytes: 32 * 1024 * 1024,
        }
    }
}

impl ArchiveLimits {
    /// Entries of any kind (files, directories, links) one archive may hold.
    fn max_entries(&self) -> usize {
        self.max_files.saturating_mul(4).max(64)
    }

    /// Bytes the decompressed tar stream (headers and padding included) may reach.
    fn max_stream_bytes(&self) -> u64 {
        self.max_uncompressed_bytes
            .saturating_mul(2)
            .saturating_add(1024 * 1024)
    }
}

/// Why an archive was refused. Nothing of it is left on disk.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ArchiveError {
    /// It holds more files than [`ArchiveLimits::max_files`].
    #[error("it holds more than {limit} files (raise ArchiveLimits::max_files)")]
    TooManyFiles {
        /// The limit.
        limit: usize,
    },
    /// It holds more entries of any kind than allowed.
    #[error("it holds more than {limit} entries")]
    TooManyEntries {
        /// The limit.
        limit: usize,
    },
    /// Its files unpack to more than [`ArchiveLimits::max_uncompressed_bytes`].
    #[error(
        "its files unpack to more than {limit} bytes (raise ArchiveLimits::max_uncompressed_bytes)"
    )]
    TooLarge {
        /// The limit.
        limit: u64,
    },
    /// It comes after [`ArchiveLimits::max_archives`] archives of the same server.
    #[error("the server lists more than {limit} archives (raise ArchiveLimits::max_archives)")]
    TooManyArchives {
        /// The limit.
        limit: usize,
    },
    /// Its files would take the server's archives past [`ArchiveLimits::max_total_bytes`].
    #[error(
        "the server's archives unpack to more than {limit} bytes in all (raise ArchiveLimits::max_total_bytes)"
    )]
    TotalTooLarge {
        /// The limit.
        limit: u64,
    },
    /// It is larger than [`ArchiveLimits::max_download_bytes`] as downloaded.
    #[error(
        "the archive has {size} bytes, more than {limit} (raise ArchiveLimits::max_download_bytes)"
    )]
    DownloadTooLarge {
        /// Its size.
        size: u64,
        /// The limit.
        limit: u64,
    },
    /// An entry would land outside the extraction directory, or has a name no file may have.
    #[error("entry {entry:?} is refused: {reason}")]
    UnsafeEntry {
        /// The entry's name as the archive spells it.
        entry: String,
        /// Why.
        reason: &'static str,
    },
    /// The archive is damaged, truncated, encrypted or not of its format.
    #[error("it cannot be read as {format}: {message}")]
    Corrupt {
        /// The format it was read as.
        format: ArchiveFormat,
        /// What the reader said.
        message: String,
    },
    /// Writing a file failed.
    #[error("cannot write {}: {source}", path.display())]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// What the operating system said.
        #[source]
        source: io::Error,
    },
}

/// Extracts `bytes` into `target`, which must not exist yet, writing at most `budget` bytes
/// (what the server's archives may still unpack to in this load); returns how many bytes were
/// written. Directories are made 0700 and files 0600 on Unix: readable by this user only.
/// Blocking.
///
/// Regular files and directories are written; tar symbolic links, hard links, devices and FIFOs
/// and zip symbolic links are skipped. The caller removes `target` when this fails.
///
/// # Errors
/// [`ArchiveError`] for an archive over a limit, an unsafe entry (absolute, `..`, a backslash,
/// a drive letter), a damaged archive, or a failed write.
pub(crate) fn extract(
    bytes: &[u8],
    format: ArchiveFormat,
    target: &Path,
    limits: &ArchiveLimits,
    budget: u64,
) -> Result<u64, ArchiveError> {
    private_builder()
        .create(target)
        .map_err(|source| ArchiveError::Io {
            path: target.to_owned(),
            source,
        })?;
    let mut writer = Writer {
        target,
        limits,
        files: 0,
        entries: 0,
        written: 0,
        budget: budget.min(limits.max_uncompressed_bytes),
        total_binds: budget < limits.max_uncompressed_bytes,
    };
    match format {
        ArchiveFormat::Zip => extract_zip(bytes, &mut writer)?,
        ArchiveFormat::TarGz => extract_tar_gz(bytes, &mut writer)?,
    }
    Ok(writer.written)
}

/// Creates directories readable by this user only.
fn private_builder() -> fs::DirBuilder {
    let mut builder = fs::DirBuilder::new();
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    builder
}

fn corrupt(format: ArchiveFormat, error: impl fmt::Display) -> ArchiveError {
    ArchiveError::Corrupt {
        format,
        message: error.to_string(),
    }
}

fn extract_zip(bytes: &[u8], writer: &mut Writer<'_>) -> Result<(), ArchiveError> {
    let format = ArchiveFormat::Zip;
    let mut archive =
        zip::ZipArchive::new(io::Cursor::new(bytes)).map_err(|error| corrupt(format, error))?;
    for index in 0..archive.len() {
        writer.count_entry()?;
        let mut file = archive
            .by_index(index)
            .map_err(|error| corrupt(format, error))?;
        let name = file.name().to_owned();
        let path = entry_path(&name)?;
        if file.is_symlink() {
            tracing::debug!(entry = %name, "archive entry skipped: it is a symbolic link");
        } else if file.is_dir() {
            writer.directory(&path)?;
        } else {
            if file.encrypted() {
                return Err(corrupt(format, format!("entry {name:?} is encrypted")));
            }
            writer.file(&path, &mut file, format)?;
        }
    }
    Ok(())
}

fn extract_tar_gz(bytes: &[u8], writer: &mut Writer<'_>) -> Result<(), ArchiveError> {
    let format = ArchiveFormat::TarGz;
    let stream = Capped {
        inner: GzDecoder::new(bytes),
        remaining: writer.limits.max_stream_bytes(),
    };
    let mut archive = tar::Archive::new(stream);
    let entries = archive.entries().map_err(|error| corrupt(format, error))?;
    for entry in entries {
        writer.count_entry()?;
        let mut entry = entry.map_err(|error| corrupt(format, error))?;
        let name = String::from_utf8_lossy(&entry.path_bytes()).into_owned();
        let kind = entry.header().entry_type();
        if kind.is_pax_global_extensions() {
            continue;
        }
        let path = entry_path(&name)?;
        if kind.is_dir() {
            writer.directory(&path)?;
        } else if kind.is_file() || kind.is_contiguous() {
            writer.file(&path, &mut entry, format)?;
        } else {
            tracing::debug!(entry = %name, "archive entry skipped: only regular files and directories are extracted");
        }
    }
    // Read to the end of the gzip stream, so that a truncated or damaged one is noticed even
    // when the tar's end marker came first.
    io::copy(&mut archive.into_inner(), &mut io::sink()).map_err(|error| corrupt(format, error))?;
    Ok(())
}

/// A reader that fails once more than `remaining` bytes have come through it.
struct Capped<R> {
    inner: R,
    remaining: u64,
}

impl<R: Read> Read for Capped<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let read = self.inner.read(buf)?;
        self.remaining = self.remaining.checked_sub(read as u64).ok_or_else(|| {
            io::Error::other("the decompressed stream is larger than the limits allow")
        })?;
        Ok(read)
    }
}

/// The relative path of an entry, or why it is refused: archives write `./` prefixes, doubled
/// and trailing slashes, which are dropped; what remains must pass the workspace's one set of
/// name rules ([`RelativeName`]).
fn entry_path(name: &str) -> Result<PathBuf, ArchiveError> {
    let segments: Vec<&str> = name
        .split('/')
        .filter(|segment| !segment.is_empty() && *segment != ".")
        .collect();
    // An absolute entry keeps its leading slash, so that the rules refuse it.
    let root = if name.starts_with('/') { "/" } else { "" };
    let normalized = format!("{root}{}", segments.join("/"));
    RelativeName::new(&normalized).map_err(|refused| ArchiveError::UnsafeEntry {
        entry: name.to_owned(),
        reason: refused.reason,
    })?;
    Ok(normalized.split('/').collect())
}

/// Writes the entries of one archive under `target`, keeping count against the limits.
struct Writer<'a> {
    target: &'a Path,
    limits: &'a ArchiveLimits,
    files: usize,
    entries: usize,
    /// Bytes written so far.
    written: u64,
    /// The most bytes this archive may write: its own limit, or less when the server's total
    /// budget is smaller (then `total_binds`).
    budget: u64,
    total_binds: bool,
}

impl Writer<'_> {
    fn count_entry(&mut self) -> Result<(), ArchiveError> {
        self.entries += 1;
        let limit = self.limits.max_entries();
        if self.entries > limit {
            return Err(ArchiveError::TooManyEntries { limit });
        }
        Ok(())
    }

    fn directory(&self, relative: &Path) -> Result<(), ArchiveError> {
        let path = self.target.join(relative);
        private_builder()
            .recursive(true)
            .create(&path)
            .map_err(|source| ArchiveError::Io { path, source })
    }

    fn file(
        &mut self,
        relative: &Path,
        content: &mut dyn Read,
        format: ArchiveFormat,
    ) -> Result<(), ArchiveError> {
        self.files += 1;
        if self.files > self.limits.max_files {
            return Err(ArchiveError::TooManyFiles {
                limit: self.limits.max_files,
            });
        }
        if let Some(parent) = relative.parent() {
            self.directory(parent)?;
        }
        let path = self.target.join(relative);
        let io_error = |source| ArchiveError::Io {
            path: path.clone(),
            source,
        };
        let mut options = OpenOptions::new();
        options.write(true).create_new(true);
        #[cfg(unix)]
        std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
        let mut out = options.open(&path).map_err(io_error)?;
        let mut buffer = [0u8; 16 * 1024];
        loop {
            let read = match content.read(&mut buffer) {
                Ok(0) => break,
                Ok(read) => read,
                Err(error) if error.kind() == io::ErrorKind::Interrupted => continue,
                Err(error) => return Err(corrupt(format, error)),
            };
            let written = self.written.saturating_add(read as u64);
            if written > self.budget {
                return Err(if self.total_binds {
                    ArchiveError::TotalTooLarge {
                        limit: self.limits.max_total_bytes,
                    }
                } else {
                    ArchiveError::TooLarge {
                        limit: self.limits.max_uncompressed_bytes,
                    }
                });
            }
            self.written = written;
            out.write_all(&buffer[..read]).map_err(io_error)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entry_paths_stay_relative() {
        assert_eq!(
            entry_path("./a//b/c.md").unwrap(),
            Path::new("a").join("b").join("c.md")
        );
        for name in [
            "../x",
            "a/../../x",
            "..\\x",
            "/etc/passwd",
            "C:/x",
            "c:x",
            "a/b:c",
            "",
            "./",
        ] {
            assert!(entry_path(name).is_err(), "{name}");
        }
    }
}

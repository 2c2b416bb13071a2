//! What an installation shows of itself: its steps and each download's bytes, reported to an
//! [`InstallProgress`] that the caller implements. The engine writes nothing to the terminal:
//! the CLI draws the bars and lines (escaped, through its writer), a service may log them, and
//! [`Quiet`] shows nothing.

use std::fmt;

/// Where an installation reports its steps and downloads. Calls come from the installing task,
/// one download at a time: `download_started`, any number of `downloaded`, `download_finished`
/// (also when the download failed).
///
/// # Example
/// ```
/// use std::sync::atomic::{AtomicU64, Ordering};
///
/// use skillful_engine::InstallProgress;
///
/// /// Counts the bytes downloaded.
/// #[derive(Debug, Default)]
/// struct Bytes(AtomicU64);
///
/// impl InstallProgress for Bytes {
///     fn step(&self, _line: &str) {}
///     fn download_started(&self, _title: &str, _total: u64) {}
///     fn downloaded(&self, bytes: u64) {
///         self.0.fetch_add(bytes, Ordering::Relaxed);
///     }
///     fn download_finished(&self) {}
/// }
///
/// let bytes = Bytes::default();
/// bytes.downloaded(512);
/// assert_eq!(bytes.0.load(Ordering::Relaxed), 512);
/// ```
pub trait InstallProgress: fmt::Debug + Send + Sync {
    /// A step begins or ends: `line` says which (`model qwen2.5-coder-1.5b is ready: …`).
    fn step(&self, line: &str);

    /// A download of `total` bytes begins; `title` says what it is (`downloading the engine,
    /// xllamacpp 2026.10.11549 (42 MB)`). Bytes already on disk from an earlier, interrupted
    /// download are reported as downloaded.
    fn download_started(&self, title: &str, total: u64);

    /// `bytes` more of the current download are in.
    fn downloaded(&self, bytes: u64);

    /// The current download is over, whole or failed.
    fn download_finished(&self);
}

/// Shows nothing: the default of a library user who did not ask for progress.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Quiet;

impl InstallProgress for Quiet {
    fn step(&self, _line: &str) {}
    fn download_started(&self, _title: &str, _total: u64) {}
    fn downloaded(&self, _bytes: u64) {}
    fn download_finished(&self) {}
}

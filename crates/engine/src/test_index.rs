//! A package index on 127.0.0.1 for the tests: PEP 691 JSON pages and files that honour range
//! requests.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};

use axum::Router;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use serde_json::json;

#[derive(Debug, Default)]
struct Files {
    /// Project (normalized) → file names.
    projects: HashMap<String, Vec<String>>,
    /// File name → bytes.
    files: HashMap<String, Vec<u8>>,
    /// Files that answer HTTP 500 once.
    failing: HashSet<String>,
    /// The `Range` header of every file request, in order.
    ranges: Vec<Option<String>>,
    /// Every file requested, in order.
    fetched: Vec<String>,
    /// The path and query of every page requested, in order.
    pages: Vec<String>,
}

/// The running index; it stops when dropped.
#[derive(Debug)]
pub(crate) struct Index {
    root: String,
    files: Arc<Mutex<Files>>,
    task: tokio::task::JoinHandle<()>,
}

impl Index {
    pub(crate) async fn start() -> Self {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let root = format!("http://{}/", listener.local_addr().unwrap());
        let files = Arc::new(Mutex::new(Files::default()));
        let router = Router::new()
            .route("/simple/{project}/", get(page))
            .route("/files/{name}", get(file))
            .with_state(Arc::clone(&files));
        let task = tokio::spawn(async move {
            axum::serve(listener, router).await.unwrap();
        });
        Self { root, files, task }
    }

    /// The server's root URL, ending with `/`.
    pub(crate) fn root(&self) -> &str {
        &self.root
    }

    /// The simple index's URL.
    pub(crate) fn url(&self) -> String {
        format!("{}simple", self.root)
    }

    /// Lists `file` under `project` and serves `bytes` for it.
    pub(crate) fn add(&self, project: &str, file: &str, bytes: &[u8]) {
        let mut files = self.files.lock().unwrap();
        let project = project.to_ascii_lowercase().replace(['_', '.'], "-");
        files
            .projects
            .entry(project)
            .or_default()
            .push(file.to_owned());
        files.files.insert(file.to_owned(), bytes.to_vec());
    }

    /// The path and query of every page request so far.
    pub(crate) fn pages(&self) -> Vec<String> {
        self.files.lock().unwrap().pages.clone()
    }

    /// Makes the next request for `file` fail with HTTP 500.
    pub(crate) fn fail_once(&self, file: &str) {
        self.files.lock().unwrap().failing.insert(file.to_owned());
    }

    /// The `Range` header of every file request so far.
    pub(crate) fn ranges(&self) -> Vec<Option<String>> {
        self.files.lock().unwrap().ranges.clone()
    }

    /// Every file requested so far.
    pub(crate) fn fetched(&self) -> Vec<String> {
        self.files.lock().unwrap().fetched.clone()
    }
}

impl Drop for Index {
    fn drop(&mut self) {
        self.task.abort();
    }
}

async fn page(
    State(files): State<Arc<Mutex<Files>>>,
    Path(project): Path<String>,
    uri: Uri,
) -> Response {
    let mut files = files.lock().unwrap();
    files.pages.push(uri.to_string());
    let Some(names) = files.projects.get(&project) else {
        return StatusCode::NOT_FOUND.into_response();
    };
    let entries: Vec<_> = names
        .iter()
        .map(|name| {
            let bytes = &files.files[name];
            // Relative, as PEP 691 allows: resolved against the page's URL.
            json!({"filename": name, "url": format!("../../files/{name}"),
                   "hashes": {"sha256": skillful_fs::sha256_hex(bytes)}, "size": bytes.len()})
        })
        .collect();
    (
        [(header::CONTENT_TYPE, "application/vnd.pypi.simple.v1+json")],
        json!({"meta": {"api-version": "1.1"}, "name": project, "files": entries}).to_string(),
    )
        .into_response()
}

async fn file(
    State(files): State<Arc<Mutex<Files>>>,
    Path(name): Path<String>,
    headers: HeaderMap,
) -> Response {
    let mut files = files.lock().unwrap();
    let range = headers
        .get(header::RANGE)
        .and_then(|value| value.to_str().ok())
        .map(str::to_owned);
    files.ranges.push(range.clone());
    files.fetched.push(name.clone());
    if files.failing.remove(&name) {
        return StatusCode::INTERNAL_SERVER_ERROR.into_response();
    }
    let Some(bytes) = files.files.get(&name).cloned() else {
        return StatusCode::NOT_FOUND.into_response();
    };
    let start = range
        .as_deref()
        .and_then(|range| range.strip_prefix("bytes="))
        .and_then(|range| range.strip_suffix('-'))
        .and_then(|start| start.parse::<usize>().ok());
    match start {
        Some(start) if start < bytes.len() => (
            StatusCode::PARTIAL_CONTENT,
            [(
                header::CONTENT_RANGE,
                format!("bytes {start}-{}/{}", bytes.len() - 1, bytes.len()),
            )],
            bytes[start..].to_vec(),
        )
            .into_response(),
        _ => bytes.into_response(),
    }
}

//! What a discovery run is configured with: built by the builder, shared by the source, its walk
//! and the skills it yields (below all three, so that none of them reaches up for it).

use std::fmt;
use std::path::PathBuf;
use std::sync::Arc;

use skillful_core::Scope;
use skillful_frontmatter::FrontmatterLoader;

use crate::guard::ReadLimits;
use crate::runner::SharedScriptRunner;

/// A predicate over `(skill name, relative path)` that keeps a file when it returns `true`.
pub(crate) type FileFilter = Arc<dyn Fn(&str, &str) -> bool + Send + Sync>;

/// A directory searched for skills, and the scope its skills belong to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Root {
    pub(crate) path: PathBuf,
    pub(crate) scope: Scope,
}

/// Everything a discovery run needs, shared by the source and the skills it yields.
pub(crate) struct Config {
    pub(crate) roots: Vec<Root>,
    pub(crate) search_depth: usize,
    pub(crate) resource_extensions: Vec<String>,
    pub(crate) script_extensions: Vec<String>,
    pub(crate) resource_filter: Option<FileFilter>,
    pub(crate) script_filter: Option<FileFilter>,
    pub(crate) loader: FrontmatterLoader,
    pub(crate) runner: Option<SharedScriptRunner>,
    pub(crate) scripts_runnable: bool,
    pub(crate) keep_duplicates: bool,
    pub(crate) reads: ReadLimits,
    /// How many batches discovery loads skills in at once.
    pub(crate) parallelism: usize,
}

impl fmt::Debug for Config {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FileSkillsSource")
            .field("roots", &self.roots)
            .field("search_depth", &self.search_depth)
            .field("resource_extensions", &self.resource_extensions)
            .field("script_extensions", &self.script_extensions)
            .field("resource_filter", &self.resource_filter.is_some())
            .field("script_filter", &self.script_filter.is_some())
            .field("loader", &self.loader)
            .field("runner", &self.runner)
            .field("scripts_runnable", &self.scripts_runnable)
            .field("reads", &self.reads)
            .finish()
    }
}

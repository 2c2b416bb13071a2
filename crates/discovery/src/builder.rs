use std::fmt;
use std::path::PathBuf;
use std::sync::Arc;

use skillful_core::Scope;
use skillful_frontmatter::FrontmatterLoader;

use crate::config::{Config, FileFilter, Root};
use crate::guard::ReadLimits;
use crate::runner::SharedScriptRunner;
use crate::source::FileSkillsSource;

/// The extensions of resource files when none are configured.
pub const DEFAULT_RESOURCE_EXTENSIONS: [&str; 7] =
    [".md", ".json", ".yaml", ".yml", ".csv", ".xml", ".txt"];

/// The extensions of script files when none are configured.
pub const DEFAULT_SCRIPT_EXTENSIONS: [&str; 6] = [".py", ".js", ".sh", ".ps1", ".cs", ".csx"];

/// How deep resources and scripts are looked for when not configured: the skill directory and
/// one level below it.
pub const DEFAULT_SEARCH_DEPTH: usize = 2;

/// How many bytes of a skill's file are read into memory at once when not configured: 16 MiB.
/// A whole file over it is refused; a window of it is cut to it.
pub const DEFAULT_MAX_READ_BYTES: u64 = 16 * 1024 * 1024;

/// Which extension list a [`BuildError`] is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExtensionList {
    /// [`FileSkillsSourceBuilder::resource_extensions`].
    Resource,
    /// [`FileSkillsSourceBuilder::script_extensions`].
    Script,
}

impl fmt::Display for ExtensionList {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ExtensionList::Resource => "resource",
            ExtensionList::Script => "script",
        })
    }
}

/// Why a [`FileSkillsSourceBuilder`] refused its configuration.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum BuildError {
    /// The search depth is below 1.
    #[error(
        "search depth {depth} is invalid: it must be at least 1 (1 = the skill directory only, 2 = one level below it)"
    )]
    SearchDepth {
        /// The depth given.
        depth: usize,
    },
    /// An extension does not have the form `.ext`.
    #[error(
        "{list} extension {extension:?} is invalid: each extension must start with '.' and name a file ending, e.g. \".md\""
    )]
    Extension {
        /// The list it was given in.
        list: ExtensionList,
        /// The extension given.
        extension: String,
    },
    /// The read limit is zero.
    #[error("the read limit must be at least 1 byte")]
    ZeroReadLimit,
}

impl FileSkillsSource {
    /// A builder with the defaults: no roots, search depth 2, the default extensions, lenient
    /// validation, no script runner, scripts runnable.
    pub fn builder() -> FileSkillsSourceBuilder {
        FileSkillsSourceBuilder::default()
    }
}

/// Configures a [`FileSkillsSource`].
///
/// # Example
/// ```
/// use skillful_discovery::FileSkillsSource;
/// use skillful_frontmatter::{FrontmatterLoader, ValidationMode};
///
/// let source = FileSkillsSource::builder()
///     .root("skills")
///     .root(".agents/skills")
///     .search_depth(3)
///     .resource_extensions([".md", ".json"])
///     .resource_filter(|_skill, path| !path.starts_with("drafts/"))
///     .loader(FrontmatterLoader::new(ValidationMode::Strict))
///     .build()
///     .unwrap();
/// # let _ = source;
/// ```
pub struct FileSkillsSourceBuilder {
    roots: Vec<Root>,
    search_depth: usize,
    resource_extensions: Vec<String>,
    script_extensions: Vec<String>,
    resource_filter: Option<FileFilter>,
    script_filter: Option<FileFilter>,
    loader: FrontmatterLoader,
    runner: Option<SharedScriptRunner>,
    scripts_runnable: bool,
    keep_duplicates: bool,
    reads: ReadLimits,
}

impl Default for FileSkillsSourceBuilder {
    fn default() -> Self {
        Self {
            roots: Vec::new(),
            search_depth: DEFAULT_SEARCH_DEPTH,
            resource_extensions: owned(DEFAULT_RESOURCE_EXTENSIONS),
            script_extensions: owned(DEFAULT_SCRIPT_EXTENSIONS),
            resource_filter: None,
            script_filter: None,
            loader: FrontmatterLoader::default(),
            runner: None,
            scripts_runnable: true,
            keep_duplicates: false,
            reads: ReadLimits {
                max_bytes: DEFAULT_MAX_READ_BYTES,
                allow_hard_links: false,
            },
        }
    }
}

impl fmt::Debug for FileSkillsSourceBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FileSkillsSourceBuilder")
            .field("roots", &self.roots)
            .field("search_depth", &self.search_depth)
            .finish_non_exhaustive()
    }
}

fn owned<const N: usize>(extensions: [&str; N]) -> Vec<String> {
    extensions.iter().map(|e| (*e).to_owned()).collect()
}

impl FileSkillsSourceBuilder {
    /// Adds a directory to search. Roots are searched in the order added; on a duplicate skill
    /// name the first one found wins. A root that does not exist yields no skills.
    ///
    /// Its skills are in the [`Scope::Explicit`] scope.
    pub fn root(self, root: impl Into<PathBuf>) -> Self {
        self.scoped_root(root, Scope::Explicit)
    }

    /// Adds a directory to search whose skills belong to `scope` (a project's, the user's, the
    /// machine's); their origin says so.
    pub fn scoped_root(mut self, root: impl Into<PathBuf>, scope: Scope) -> Self {
        self.roots.push(Root {
            path: root.into(),
            scope,
        });
        self
    }

    /// Adds several directories to search, in order.
    pub fn roots<I>(self, roots: I) -> Self
    where
        I: IntoIterator,
        I::Item: Into<PathBuf>,
    {
        roots
            .into_iter()
            .fold(self, |builder, root| builder.root(root))
    }

    /// How many directory levels are scanned for resources and scripts: 1 is the skill
    /// directory only, 2 (the default) also its subdirectories, and so on.
    pub fn search_depth(mut self, depth: usize) -> Self {
        self.search_depth = depth;
        self
    }

    /// The file endings that make a file a resource, replacing the defaults
    /// ([`DEFAULT_RESOURCE_EXTENSIONS`]). Matched case-insensitively; each must start with `.`.
    pub fn resource_extensions<I>(mut self, extensions: I) -> Self
    where
        I: IntoIterator,
        I::Item: Into<String>,
    {
        self.resource_extensions = extensions.into_iter().map(Into::into).collect();
        self
    }

    /// The file endings that make a file a script, replacing the defaults
    /// ([`DEFAULT_SCRIPT_EXTENSIONS`]). Matched case-insensitively; each must start with `.`.
    pub fn script_extensions<I>(mut self, extensions: I) -> Self
    where
        I: IntoIterator,
        I::Item: Into<String>,
    {
        self.script_extensions = extensions.into_iter().map(Into::into).collect();
        self
    }

    /// Keeps only the resources for which `filter(skill_name, relative_path)` is true.
    pub fn resource_filter(
        mut self,
        filter: impl Fn(&str, &str) -> bool + Send + Sync + 'static,
    ) -> Self {
        self.resource_filter = Some(Arc::new(filter));
        self
    }

    /// Keeps only the scripts for which `filter(skill_name, relative_path)` is true.
    pub fn script_filter(
        mut self,
        filter: impl Fn(&str, &str) -> bool + Send + Sync + 'static,
    ) -> Self {
        self.script_filter = Some(Arc::new(filter));
        self
    }

    /// How `SKILL.md` frontmatter is parsed and validated (default: lenient, default limits).
    pub fn loader(mut self, loader: FrontmatterLoader) -> Self {
        self.loader = loader;
        self
    }

    /// The runner that executes script files. Without one, scripts are still listed and fail
    /// with [`SkillError::NotRunnable`](skillful_core::SkillError::NotRunnable) when run.
    pub fn script_runner(mut self, runner: SharedScriptRunner) -> Self {
        self.runner = Some(runner);
        self
    }

    /// Whether the scripts of these skills may run at all (default `true`). Set `false` for
    /// skills from an untrusted place, such as an extracted archive: their scripts are listed,
    /// and running one is refused.
    pub fn scripts_runnable(mut self, runnable: bool) -> Self {
        self.scripts_runnable = runnable;
        self
    }

    /// How many bytes of a file are read into memory at once (default
    /// [`DEFAULT_MAX_READ_BYTES`]): a resource, or any file read whole, over it is refused (read
    /// it in windows instead, [`FileSkill::read_window`](crate::FileSkill::read_window)), and a
    /// window is cut to it.
    pub fn max_read_bytes(mut self, bytes: u64) -> Self {
        self.reads.max_bytes = bytes;
        self
    }

    /// Whether a file with more than one hard link is read (default `false`). A hard link can
    /// give a file from anywhere on the same file system (a key, a credential) a name inside a
    /// skill, so such files are refused unless allowed here.
    pub fn allow_hard_links(mut self, allow: bool) -> Self {
        self.reads.allow_hard_links = allow;
        self
    }

    /// Whether a skill whose name (ignoring case) an earlier one already has is still yielded
    /// (default `false`: the first one found wins, and the later one becomes a warning). Set it
    /// when the caller resolves names itself, as `skillful-config` does to report shadowed
    /// skills.
    pub fn keep_duplicates(mut self, keep: bool) -> Self {
        self.keep_duplicates = keep;
        self
    }

    /// Checks the configuration and builds the source.
    ///
    /// # Errors
    /// [`BuildError::SearchDepth`] for a depth below 1, [`BuildError::Extension`] for an
    /// extension that does not start with `.`, [`BuildError::ZeroReadLimit`] for a read limit
    /// of 0.
    pub fn build(self) -> Result<FileSkillsSource, BuildError> {
        if self.reads.max_bytes == 0 {
            return Err(BuildError::ZeroReadLimit);
        }
        if self.search_depth < 1 {
            return Err(BuildError::SearchDepth {
                depth: self.search_depth,
            });
        }
        let resource_extensions =
            checked_extensions(ExtensionList::Resource, self.resource_extensions)?;
        let script_extensions = checked_extensions(ExtensionList::Script, self.script_extensions)?;
        Ok(FileSkillsSource::from_config(Config {
            roots: self.roots,
            search_depth: self.search_depth,
            resource_extensions,
            script_extensions,
            resource_filter: self.resource_filter,
            script_filter: self.script_filter,
            loader: self.loader,
            runner: self.runner,
            scripts_runnable: self.scripts_runnable,
            keep_duplicates: self.keep_duplicates,
            reads: self.reads,
            parallelism: std::thread::available_parallelism().map_or(1, usize::from),
        }))
    }
}

/// The extensions, or the first one that is not `.ext`.
fn checked_extensions(
    list: ExtensionList,
    extensions: Vec<String>,
) -> Result<Vec<String>, BuildError> {
    extensions
        .into_iter()
        .map(|extension| {
            let ending = extension.strip_prefix('.').unwrap_or_default();
            let valid = !ending.is_empty()
                && !ending
                    .chars()
                    .any(|c| c == '/' || c == '\\' || c.is_whitespace() || c.is_control());
            if valid {
                Ok(extension)
            } else {
                Err(BuildError::Extension { list, extension })
            }
        })
        .collect()
}

impl Config {
    /// Whether `file_name` ends with one of `extensions`, ignoring ASCII case.
    pub(crate) fn has_extension(extensions: &[String], file_name: &str) -> bool {
        let name = file_name.as_bytes();
        extensions.iter().any(|extension| {
            name.len() >= extension.len()
                && name[name.len() - extension.len()..].eq_ignore_ascii_case(extension.as_bytes())
        })
    }
}

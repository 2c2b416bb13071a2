//! The composition a [`SkillsConfig`](super::SkillsConfig) builds: its sources, its notes, and
//! live reload of its file skills.

use std::collections::HashSet;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use skillful_core::{Scope, Skill, SkillError, SkillsSource, SourceContext};
use skillful_discovery::FileSkillsSource;
use skillful_inline::Precedence;
#[cfg(feature = "plugins")]
use skillful_plugin_host::PluginSkillsSource;
#[cfg(feature = "watch")]
use skillful_watch::{WatchedSource, WatchedSourceBuilder};
#[cfg(feature = "watch")]
use tokio::sync::OnceCell;

#[cfg(feature = "mcp")]
use super::McpPart;
use super::Note;
use crate::settings::Enablement;

/// The skills a [`SkillsConfig`](super::SkillsConfig) composes: a [`SkillsSource`] for the provider, and
/// [`Composition::load`] for listings that also show what was left out and why.
#[derive(Debug, Clone)]
pub struct Composition {
    pub(super) inner: Arc<Inner>,
    pub(super) notes: Vec<Note>,
}

pub(super) struct Inner {
    pub(super) files: FileSkillsSource,
    #[cfg(feature = "plugins")]
    pub(super) plugins: PluginSkillsSource,
    #[cfg(feature = "plugins")]
    pub(super) has_plugins: bool,
    #[cfg(feature = "mcp")]
    pub(super) mcp: Vec<McpPart>,
    pub(super) inline: Vec<Arc<dyn Skill>>,
    pub(super) enablement: Enablement,
    pub(super) roots: Vec<(PathBuf, Scope)>,
    /// Whether skills whose files differ from their lock are left out.
    pub(super) locked: bool,
    /// Where the digests of locked skills' files are cached (the user's cache directory).
    pub(super) digest_cache: PathBuf,
    /// The rule of names, which remembers the shadowed skills it warned about, so that a long
    /// chat warns once.
    pub(super) precedence: Precedence,
    /// Modified skills already warned about, so that a long chat warns once.
    pub(super) warned: Mutex<HashSet<String>>,
    /// The file skills, watched, once [`Composition::watch`] started watching them.
    #[cfg(feature = "watch")]
    pub(super) watched: OnceCell<Arc<WatchedSource>>,
}

impl std::fmt::Debug for Inner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut f = f.debug_struct("Composition");
        f.field("files", &self.files);
        #[cfg(feature = "plugins")]
        f.field("plugins", &self.plugins);
        #[cfg(feature = "mcp")]
        f.field(
            "mcp",
            &self.mcp.iter().map(|part| &part.label).collect::<Vec<_>>(),
        );
        f.field("inline", &self.inline.len())
            .field("roots", &self.roots);
        #[cfg(feature = "watch")]
        f.field("watched", &self.watched.initialized());
        f.finish_non_exhaustive()
    }
}

impl Composition {
    /// The notes made while composing (an untrusted project whose skills were left out).
    pub fn notes(&self) -> &[Note] {
        &self.notes
    }

    /// The file roots read, with their scopes, in precedence order (for watchers and servers).
    pub fn file_roots(&self) -> &[(PathBuf, Scope)] {
        &self.inner.roots
    }

    /// The file source of the composition (every root, scoped), for hosts that serve files.
    pub fn file_source(&self) -> &FileSkillsSource {
        &self.inner.files
    }

    /// The composition as the source a provider reads: the active skills, each name once.
    pub fn source(&self) -> Arc<dyn SkillsSource> {
        Arc::new(self.clone())
    }

    /// Live reload for long-running hosts: starts watching the file roots (once; later calls
    /// return the same watched source) and from then on reads the file skills of this
    /// composition, and of its clones, from the watched source instead of walking the roots on
    /// every [`load`](Self::load). Feature `watch` (links `skillful-watch` and `notify`).
    ///
    /// A skill added, changed or removed takes effect at the next load after the watcher's
    /// debounce; a burst of changes is one reload. The returned source announces each reload
    /// ([`WatchedSource::reloads`]); an MCP server can serve it
    /// (`skillful_mcp::SkillsMcpServer::watched`). Never fails: a root the platform's watcher
    /// cannot watch is polled, with a warning.
    ///
    /// # Panics
    /// Outside a tokio runtime.
    ///
    /// # Example
    /// ```
    /// use skillful_config::{Environment, SkillsConfig};
    /// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
    /// # let temp = tempfile::tempdir().unwrap();
    /// let composition = SkillsConfig::new(Environment::under(temp.path()))
    ///     .root(temp.path())
    ///     .build()
    ///     .unwrap();
    /// let watched = composition.watch().await;
    /// let mut reloads = watched.reloads();
    /// // ... a skill is added under the root ...
    /// # let dir = temp.path().join("greeter");
    /// # std::fs::create_dir(&dir).unwrap();
    /// # std::fs::write(dir.join("SKILL.md"), "---\nname: greeter\ndescription: Greets.\n---\nHi.\n").unwrap();
    /// # tokio::time::timeout(std::time::Duration::from_secs(10), reloads.changed()).await.unwrap().unwrap();
    /// let loaded = composition.load(&Default::default()).await.unwrap();
    /// assert_eq!(loaded.active()[0].name(), "greeter");
    /// # });
    /// ```
    #[cfg(feature = "watch")]
    pub async fn watch(&self) -> Arc<WatchedSource> {
        self.watch_with(|builder| builder).await
    }

    /// [`Composition::watch`], with the watcher configured by `configure` (debounce, polling)
    /// when this call is the one that starts it.
    ///
    /// # Panics
    /// Outside a tokio runtime.
    #[cfg(feature = "watch")]
    pub async fn watch_with(
        &self,
        configure: impl FnOnce(WatchedSourceBuilder) -> WatchedSourceBuilder,
    ) -> Arc<WatchedSource> {
        let files = &self.inner.files;
        Arc::clone(
            self.inner
                .watched
                .get_or_init(|| async {
                    Arc::new(
                        configure(WatchedSource::builder(files.clone()))
                            .start()
                            .await,
                    )
                })
                .await,
        )
    }
}

#[async_trait]
impl SkillsSource for Composition {
    async fn skills(&self, context: &SourceContext) -> Result<Vec<Arc<dyn Skill>>, SkillError> {
        Ok(self.load(context).await?.active())
    }
}

use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use async_trait::async_trait;
use indexmap::IndexMap;
use skillful_core::{Skill, SkillError, SkillsSource, SourceContext};
use tokio::time::Instant;

/// The skills of an inner source, fetched once per isolation key and then served from memory.
///
/// Concurrent callers with the same key wait for one fetch (single flight); callers with other
/// keys do not wait for it. A failed fetch is not cached: the next caller fetches again. With a
/// refresh interval, a result that old is fetched afresh on the next call.
///
/// The cache is bounded: it keeps the skills of at most [`capacity`](Self::capacity) isolation
/// keys ([`DEFAULT_CACHED_KEYS`] unless configured), forgetting the least recently used key
/// first, so a host that isolates every session holds the lists of its recent sessions only. A
/// forgotten key is fetched again when it is next used.
#[derive(Debug)]
pub struct CachingSource {
    inner: Arc<dyn SkillsSource>,
    refresh_every: Option<Duration>,
    capacity: usize,
    /// Least recently used first.
    entries: Mutex<IndexMap<Option<String>, Arc<Entry>>>,
}

/// How many isolation keys a [`CachingSource`] keeps the skills of when not configured.
pub const DEFAULT_CACHED_KEYS: usize = 256;

type Entry = tokio::sync::Mutex<Option<Fetched>>;

#[derive(Debug)]
struct Fetched {
    skills: Vec<Arc<dyn Skill>>,
    at: Instant,
}

impl CachingSource {
    /// Caches `inner`'s skills until the process ends.
    pub fn new(inner: Arc<dyn SkillsSource>) -> Self {
        Self {
            inner,
            refresh_every: None,
            capacity: DEFAULT_CACHED_KEYS,
            entries: Mutex::new(IndexMap::new()),
        }
    }

    /// The same cache, keeping the skills of at most `keys` isolation keys (at least one).
    #[must_use]
    pub fn capacity(mut self, keys: usize) -> Self {
        self.capacity = keys.max(1);
        self
    }

    /// The same cache, fetching afresh once a result is `interval` old.
    #[must_use]
    pub fn refresh_every(mut self, interval: Duration) -> Self {
        self.refresh_every = Some(interval);
        self
    }

    fn entry(&self, key: &Option<String>) -> Arc<Entry> {
        // Holding the map only to find the entry: no await happens under this lock, and a panic
        // elsewhere cannot leave the map half-updated.
        // A caller still holding a forgotten entry finishes with it; the next caller of that key
        // starts a new one.
        let mut entries = self.entries.lock().unwrap_or_else(PoisonError::into_inner);
        let entry = entries.shift_remove(key).unwrap_or_default();
        entries.insert(key.clone(), Arc::clone(&entry));
        if entries.len() > self.capacity {
            entries.shift_remove_index(0);
        }
        entry
    }

    fn is_fresh(&self, fetched: &Fetched) -> bool {
        self.refresh_every
            .is_none_or(|interval| fetched.at.elapsed() < interval)
    }
}

#[async_trait]
impl SkillsSource for CachingSource {
    async fn skills(&self, context: &SourceContext) -> Result<Vec<Arc<dyn Skill>>, SkillError> {
        let entry = self.entry(&context.isolation_key);
        let mut cached = entry.lock().await;
        if let Some(fetched) = cached.as_ref().filter(|fetched| self.is_fresh(fetched)) {
            return Ok(fetched.skills.clone());
        }
        let skills = self.inner.skills(context).await?;
        *cached = Some(Fetched {
            skills: skills.clone(),
            at: Instant::now(),
        });
        Ok(skills)
    }
}

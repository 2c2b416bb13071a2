//! Where task records are kept: the [`TaskStore`] trait and the in-process default.

use std::fmt;
use std::sync::Mutex;

use async_trait::async_trait;
use indexmap::IndexMap;

use super::{TaskId, TaskRecord};

/// Why a [`TaskStore`] could not keep or give a record.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TaskStoreError {
    /// The store is not reachable or refused the operation; the message says why.
    #[error("the task store failed: {0}")]
    Unavailable(String),
}

/// Keeps task records ([`TaskRecord`]) for [`Tasks`](super::Tasks).
///
/// The default, [`InMemoryTaskStore`], keeps them for the life of the process. A host whose
/// conversations outlive a process (a server, a queue of workers) implements this on its
/// database: `save` is called when a call becomes a task and when it ends (never for each line of
/// output, which stays in memory), so a store sees two writes per task; records are keyed by
/// [`TaskRecord::task_id`] and filtered by [`TaskRecord::session`], which a durable store should
/// index. A record whose status is not terminal and whose process no
/// [`Tasks`](super::Tasks) runs any more is a lost task: its host says so and may run it again.
#[async_trait]
pub trait TaskStore: Send + Sync + fmt::Debug {
    /// Keeps `record`, replacing the record of the same id.
    ///
    /// # Errors
    /// The store could not write it.
    async fn save(&self, record: &TaskRecord) -> Result<(), TaskStoreError>;

    /// The record of `id`, if kept.
    ///
    /// # Errors
    /// The store could not read.
    async fn load(&self, id: &TaskId) -> Result<Option<TaskRecord>, TaskStoreError>;

    /// The records of `session` (those without a session for `None`), oldest first.
    ///
    /// # Errors
    /// The store could not read.
    async fn list(&self, session: Option<&str>) -> Result<Vec<TaskRecord>, TaskStoreError>;
}

/// Task records in memory, the newest [`InMemoryTaskStore::DEFAULT_CAPACITY`] (or the capacity
/// given) of them: past it, the oldest ended record is forgotten first.
#[derive(Debug)]
pub struct InMemoryTaskStore {
    records: Mutex<IndexMap<TaskId, TaskRecord>>,
    capacity: usize,
}

impl InMemoryTaskStore {
    /// How many records are kept when not configured.
    pub const DEFAULT_CAPACITY: usize = 1_000;

    /// A store keeping at most `capacity` records (at least one).
    pub fn with_capacity(capacity: usize) -> Self {
        Self {
            records: Mutex::new(IndexMap::new()),
            capacity: capacity.max(1),
        }
    }

    fn records(&self) -> std::sync::MutexGuard<'_, IndexMap<TaskId, TaskRecord>> {
        self.records
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

impl Default for InMemoryTaskStore {
    fn default() -> Self {
        Self::with_capacity(Self::DEFAULT_CAPACITY)
    }
}

#[async_trait]
impl TaskStore for InMemoryTaskStore {
    async fn save(&self, record: &TaskRecord) -> Result<(), TaskStoreError> {
        let mut records = self.records();
        records.insert(record.task_id.clone(), record.clone());
        while records.len() > self.capacity {
            let oldest = records
                .iter()
                .position(|(_, record)| record.status.is_terminal())
                .unwrap_or(0);
            records.shift_remove_index(oldest);
        }
        Ok(())
    }

    async fn load(&self, id: &TaskId) -> Result<Option<TaskRecord>, TaskStoreError> {
        Ok(self.records().get(id).cloned())
    }

    async fn list(&self, session: Option<&str>) -> Result<Vec<TaskRecord>, TaskStoreError> {
        Ok(self
            .records()
            .values()
            .filter(|record| record.session.as_deref() == session)
            .cloned()
            .collect())
    }
}

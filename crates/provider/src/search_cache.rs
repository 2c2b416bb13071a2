//! The search index of `search_skills`, built once per set of skills and kept while the skills
//! stay the same.

use std::sync::Arc;

use skillful_core::{Skill, SkillError};
use skillful_fs::blocking;

use crate::search::{SearchDocument, SearchIndex};

/// The last index a provider built, with the skills it was built over.
///
/// One index is kept: a provider's runs usually see the same skills (a cached or watched
/// source), and a run over other skills (a reload, another isolation key) replaces it.
#[derive(Debug, Default)]
pub(crate) struct SearchCache {
    last: tokio::sync::Mutex<Option<Indexed>>,
}

#[derive(Debug)]
struct Indexed {
    skills: Vec<Arc<dyn Skill>>,
    index: Arc<SearchIndex>,
}

impl SearchCache {
    /// The index over `skills`: the one kept when it was built over the same skills (the same
    /// objects, or the same names and descriptions in the same order), else a new one, built on
    /// the blocking pool. Concurrent callers wait for one build.
    ///
    /// # Errors
    /// The build panicked, or the runtime is shutting down.
    pub(crate) async fn index(
        &self,
        skills: &[Arc<dyn Skill>],
    ) -> Result<Arc<SearchIndex>, SkillError> {
        let mut last = self.last.lock().await;
        if let Some(indexed) = last.as_ref()
            && same_skills(&indexed.skills, skills)
        {
            return Ok(Arc::clone(&indexed.index));
        }
        let documents: Vec<SearchDocument> = skills
            .iter()
            .map(|skill| SearchDocument::new(skill.name(), skill.description()))
            .collect();
        let index = blocking::run("building the skill search index", move || {
            SearchIndex::new(documents)
        })
        .await
        .map_err(SkillError::other)?;
        let index = Arc::new(index);
        *last = Some(Indexed {
            skills: skills.to_vec(),
            index: Arc::clone(&index),
        });
        Ok(index)
    }
}

/// Whether the index over `before` serves `now`: the same skills, or skills with the same names
/// and descriptions, in the same order. The skills of `before` are kept alive by the cache, so
/// an address seen again is the same skill.
fn same_skills(before: &[Arc<dyn Skill>], now: &[Arc<dyn Skill>]) -> bool {
    before.len() == now.len()
        && before.iter().zip(now).all(|(before, now)| {
            std::ptr::addr_eq(Arc::as_ptr(before), Arc::as_ptr(now)) || {
                before.name() == now.name() && before.description() == now.description()
            }
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use skillful_inline::InlineSkill;

    fn skill(name: &str, description: &str) -> Arc<dyn Skill> {
        Arc::new(
            InlineSkill::builder(name, description)
                .instructions("Do it.")
                .build()
                .unwrap(),
        )
    }

    #[tokio::test]
    async fn the_same_skills_reuse_the_index_and_other_skills_replace_it() {
        let cache = SearchCache::default();
        let skills = vec![skill("a", "Reads PDF files."), skill("b", "Writes notes.")];
        let first = cache.index(&skills).await.unwrap();
        assert!(Arc::ptr_eq(&first, &cache.index(&skills).await.unwrap()));
        // Other objects with the same names and descriptions: the same index.
        let copies = vec![skill("a", "Reads PDF files."), skill("b", "Writes notes.")];
        assert!(Arc::ptr_eq(&first, &cache.index(&copies).await.unwrap()));
        let changed = vec![skill("a", "Reads PDF files."), skill("b", "Writes poems.")];
        let second = cache.index(&changed).await.unwrap();
        assert!(!Arc::ptr_eq(&first, &second));
        assert_eq!(second.search("poems", 5)[0].name, "b");
        let fewer = vec![skill("a", "Reads PDF files.")];
        assert_eq!(cache.index(&fewer).await.unwrap().len(), 1);
    }
}

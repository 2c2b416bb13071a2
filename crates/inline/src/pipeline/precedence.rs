use std::collections::{HashMap, HashSet};
use std::fmt;
use std::sync::{Arc, Mutex, PoisonError};

use skillful_core::Skill;

/// The one rule of skill names, shared by the pipeline ([`DedupingSource`](super::DedupingSource))
/// and by hosts that compose their skills themselves (`skillful-config`'s `Composition`), so that
/// every host answers "which skill is `pdf`?" the same way.
///
/// - Skills are taken in the order of precedence ([`Precedence::sort`]): by scope (explicit,
///   project, user, admin), and within a scope in the order their sources were given.
/// - A skill a filter leaves out claims no name, so it never hides a later skill of its name.
/// - The first skill to claim a name has it; names are compared ignoring case
///   ([`Precedence::name_key`]). Every later skill of that name is shadowed: the caller drops it
///   or lists it as such, and it is warned about once (the warning says why: found first, or of
///   a scope of higher precedence).
///
/// A `Precedence` lives as long as its host (it remembers the warnings it gave); each list of
/// skills is ranked in a [`Ranking`] of its own.
///
/// # Example
/// ```
/// use std::sync::Arc;
/// use skillful_core::Skill;
/// use skillful_inline::{InlineSkill, Precedence, Rank};
///
/// let skill = |name: &str| -> Arc<dyn Skill> {
///     Arc::new(InlineSkill::builder(name, "Does things.").instructions("Do.").build().unwrap())
/// };
/// let (draft, first, second) = (skill("pdf"), skill("PDF"), skill("pdf"));
/// let precedence = Precedence::new();
/// let mut ranking = precedence.ranking();
/// // Left out by the host's filter (a disabled skill, a draft): it claims no name.
/// assert!(matches!(ranking.rank(&draft, "pdf", Err("draft")), Rank::LeftOut("draft")));
/// assert!(matches!(ranking.rank(&first, "PDF", Ok::<(), &str>(())), Rank::Offered));
/// let Rank::Shadowed { by_name, .. } = ranking.rank(&second, "pdf", Ok::<(), &str>(())) else {
///     panic!("a taken name");
/// };
/// assert_eq!(by_name, "PDF");
/// ```
#[derive(Debug, Default)]
pub struct Precedence {
    /// Said after a shadowing warning: how the user sees both skills.
    hint: Option<String>,
    /// The shadowed skills already warned about (name and origin), so that a long-running host
    /// that ranks its skills on every run warns once.
    warned: Mutex<HashSet<String>>,
}

impl Precedence {
    /// The rule, its warnings saying nothing more.
    pub fn new() -> Self {
        Self::default()
    }

    /// The same rule, each shadowing warning ending with `hint` (how the user sees both skills,
    /// such as a command that lists them).
    #[must_use]
    pub fn hint(mut self, hint: impl Into<String>) -> Self {
        self.hint = Some(hint.into());
        self
    }

    /// Puts `items` in the order of precedence: by the scope of each one's `skill` (explicit,
    /// project, user, admin), and within a scope in the order given (the sort is stable, so each
    /// source's own order is kept).
    pub fn sort<T>(items: &mut [T], skill: impl Fn(&T) -> &dyn Skill) {
        items.sort_by_key(|item| skill(item).scope());
    }

    /// The key two names are compared by: equal keys are the same name (case is ignored).
    pub fn name_key(name: &str) -> String {
        name.to_lowercase()
    }

    /// A ranking of one list of skills, no name taken yet.
    pub fn ranking(&self) -> Ranking<'_> {
        Ranking {
            precedence: self,
            taken: HashMap::new(),
        }
    }

    fn warn_shadowed(&self, name: &str, shadowed: &dyn Skill, by: &dyn Skill) {
        let (shadowed, by) = (shadowed.origin(), by.origin());
        let key = format!("{name}\u{0}{shadowed}");
        let first = self
            .warned
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(key);
        if !first {
            return;
        }
        let name = skillful_core::text::one_line(name);
        let why = if shadowed.scope == by.scope {
            "found first"
        } else {
            "higher precedence"
        };
        let hint = self
            .hint
            .as_deref()
            .map(|hint| format!("; {hint}"))
            .unwrap_or_default();
        tracing::warn!(
            "skill `{name}` of {shadowed} is shadowed by the skill of the same name of {by} ({why}){hint}"
        );
    }
}

/// One list of skills ranked by a [`Precedence`], skill after skill in precedence order: what
/// becomes of each ([`Ranking::rank`]) depends on the skills ranked before it.
pub struct Ranking<'a> {
    precedence: &'a Precedence,
    /// The names taken, by [`Precedence::name_key`], with the name as written and its skill.
    taken: HashMap<String, (String, Arc<dyn Skill>)>,
}

impl fmt::Debug for Ranking<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Ranking")
            .field("taken", &self.taken.values().map(|(name, _)| name))
            .finish_non_exhaustive()
    }
}

/// What became of a skill in a [`Ranking`]: the rule has these three outcomes and no other.
#[derive(Debug, Clone)]
pub enum Rank<R> {
    /// It has its name: it is offered.
    Offered,
    /// The caller's filter left it out, for this reason; it claims no name.
    LeftOut(R),
    /// A skill ranked before it has its name.
    Shadowed {
        /// That skill's name, as it wrote it.
        by_name: String,
        /// That skill.
        by: Arc<dyn Skill>,
    },
}

impl Ranking<'_> {
    /// Whether a skill ranked so far has `name` (ignoring case).
    pub fn is_taken(&self, name: &str) -> bool {
        self.taken.contains_key(&Precedence::name_key(name))
    }

    /// Ranks `skill`, the next in precedence order, under `name` (its own, or the name the host
    /// offers it under), after `filter`: the host's verdict on it, `Err` with the reason when it
    /// is left out.
    pub fn rank<R>(
        &mut self,
        skill: &Arc<dyn Skill>,
        name: &str,
        filter: Result<(), R>,
    ) -> Rank<R> {
        if let Err(reason) = filter {
            tracing::debug!(skill = %name, origin = %skill.origin(), "skill left out by a filter");
            return Rank::LeftOut(reason);
        }
        let key = Precedence::name_key(name);
        if let Some((by_name, by)) = self.taken.get(&key) {
            self.precedence
                .warn_shadowed(name, skill.as_ref(), by.as_ref());
            return Rank::Shadowed {
                by_name: by_name.clone(),
                by: Arc::clone(by),
            };
        }
        self.taken.insert(key, (name.to_owned(), Arc::clone(skill)));
        Rank::Offered
    }
}

//! The system-prompt text that advertises the skills, and the budget that keeps its listing short.

use std::borrow::Cow;
use std::collections::HashMap;
use std::collections::hash_map::Entry as Slot;
use std::sync::Arc;

use skillful_core::text::visible;
use skillful_core::validate::confusable_shown;
use skillful_core::{RiskTier, Scope, Skill};

use crate::render::{escape_xml, escaped_chars, needs_escaping};

/// The placeholder a prompt template must contain; the skills catalog replaces it.
pub const SKILLS_PLACEHOLDER: &str = "{skills}";

/// The Microsoft Agent Framework's default prompt, verbatim.
pub const DEFAULT_PROMPT_TEMPLATE: &str = "\
You have access to skills containing domain-specific knowledge and capabilities.
Each skill provides specialized instructions, reference documents, and assets for specific tasks.

<available_skills>
{skills}
</available_skills>

When a task aligns with a skill's domain, follow these steps in exact order:
- Use `load_skill` to retrieve the skill's instructions.
- Follow the provided guidance.
- Use `read_skill_resource` to read any referenced resources, using the name exactly as listed
   (e.g. `\"style-guide\"` not `\"style-guide.md\"`, `\"references/FAQ.md\"` not `\"FAQ.md\"`).
- Use `run_skill_script` to run referenced scripts, using the name exactly as listed.
Only load what is needed, when it is needed.";

/// The default size of the skills listing, in characters: what Codex allows when the context
/// window is unknown.
pub const DEFAULT_LISTING_BUDGET: usize = 8_000;

/// A description is never shortened below this many characters (the ellipsis included); when the
/// listing is still over its budget, whole skills are left out instead.
pub const MIN_DESCRIPTION_CHARS: usize = 64;

/// The listing budget for a model whose context window holds `tokens` tokens: 2% of the window
/// at about 4 characters a token (a 128,000-token window gives 10,240 characters).
///
/// # Example
/// ```
/// assert_eq!(skillful_provider::listing_budget_for_context_window(128_000), 10_240);
/// ```
#[must_use]
pub fn listing_budget_for_context_window(tokens: usize) -> usize {
    tokens.saturating_mul(4 * 2) / 100
}

/// How the skills part of one catalog came out: the `<skill>` entries and the note about what
/// was shortened or left out, which is what the listing budget counts (not the prompt around it).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Listing {
    /// The budget it was made for, in characters.
    pub budget: usize,
    /// Its size in characters (Unicode scalar values, after XML escaping). At most `budget`,
    /// except that the note about skills left out is always written, even when the budget is too
    /// small for it.
    pub chars: usize,
    /// How many skills it lists.
    pub listed: usize,
    /// How many of the listed skills have a shortened description (ending in `…`).
    pub shortened: usize,
    /// How many skills it leaves out.
    pub omitted: usize,
}

impl Listing {
    /// Whether something was shortened or left out, so that the model needs `search_skills` to
    /// see everything.
    pub fn is_cut(&self) -> bool {
        self.shortened > 0 || self.omitted > 0
    }
}

/// What decides how the skills are listed: the budget, and the skills named to be listed first.
#[derive(Debug, Clone)]
pub(crate) struct ListingRules {
    pub(crate) budget: usize,
    /// Names listed before any other skill when not all fit, in this order.
    pub(crate) first: Vec<String>,
}

impl Default for ListingRules {
    fn default() -> Self {
        Self {
            budget: DEFAULT_LISTING_BUDGET,
            first: Vec::new(),
        }
    }
}

/// One skill as the catalog lists it.
struct Entry<'a> {
    /// The name, invisible characters escaped ([`visible`]).
    name: Cow<'a, str>,
    /// The description, invisible characters escaped ([`visible`]).
    description: Cow<'a, str>,
    risk: Option<RiskTier>,
    scope: Scope,
    /// Set when another skill's name looks the same: the line that tells them apart.
    lookalike: Option<String>,
}

const ENTRY_START: &str = "  <skill>\n    <name>";
const NAME_END: &str = "</name>\n    <description>";
const DESCRIPTION_END: &str = "</description>\n";
const ENTRY_END: &str = "  </skill>";
const ELLIPSIS: char = '\u{2026}';

fn risk_line(tier: RiskTier) -> String {
    format!("    <risk>{tier}</risk>\n")
}

fn lookalike_line(text: &str) -> String {
    format!("    <lookalike>{}</lookalike>\n", escape_xml(text))
}

/// For every entry whose name reads like another entry's name (the same
/// [`skeleton`](skillful_core::validate::skeleton), e.g. `pdf-tools` and `pdf-tооls` with
/// Cyrillic `о`s), a line that spells both out, so that the model can tell which is which.
fn mark_lookalikes(entries: &mut [Entry<'_>]) {
    // The first entry of each skeleton, and the groups of those that have more than one.
    let mut first_of: HashMap<String, usize> = HashMap::with_capacity(entries.len());
    let mut groups: HashMap<usize, Vec<usize>> = HashMap::new();
    for (i, entry) in entries.iter().enumerate() {
        match first_of.entry(skillful_core::validate::skeleton(&entry.name)) {
            Slot::Occupied(first) => groups
                .entry(*first.get())
                .or_insert_with(|| vec![*first.get()])
                .push(i),
            Slot::Vacant(vacant) => {
                vacant.insert(i);
            }
        }
    }
    for group in groups.into_values() {
        for &i in &group {
            let mut others: Vec<String> = group
                .iter()
                .map(|&j| &*entries[j].name)
                .filter(|other| *other != entries[i].name)
                .map(|other| format!("`{}`", confusable_shown(other)))
                .collect();
            if others.is_empty() {
                continue;
            }
            others.sort_unstable();
            others.dedup();
            entries[i].lookalike = Some(format!(
                "This name is spelled `{}`: it is not {}, whose name looks the same.",
                confusable_shown(&entries[i].name),
                others.join(" or ")
            ));
        }
    }
}

/// `template` with every `{skills}` replaced by the catalog of `skills`: one `<skill>` element per
/// skill, sorted by name (then description) in byte order, so that the same skills and rules
/// always give the same bytes.
///
/// A skill that declares a risk tier for its scripts ([`Skill::risk_tier`], the `metadata` key
/// `risk`) has a `<risk>` line after its description; the others are written exactly as the
/// reference writes them. When the entries do not fit in the budget, the descriptions are
/// shortened first, then skills are left out (see [`fit`]).
pub(crate) fn instructions(
    template: &str,
    skills: &[Arc<dyn Skill>],
    rules: &ListingRules,
) -> (String, Listing) {
    let mut entries: Vec<Entry<'_>> = skills
        .iter()
        .map(|skill| Entry {
            name: visible(skill.name()),
            description: visible(skill.description()),
            risk: skill.risk_tier(),
            scope: skill.scope(),
            lookalike: None,
        })
        .collect();
    entries.sort_unstable_by(|a, b| {
        (&a.name, &a.description, a.risk, a.scope).cmp(&(&b.name, &b.description, b.risk, b.scope))
    });
    mark_lookalikes(&mut entries);
    let plan = fit(&entries, rules);
    let catalog = render(&entries, &plan);
    let listing = Listing {
        budget: rules.budget,
        chars: plan.chars,
        listed: plan.kept.iter().filter(|kept| **kept).count(),
        shortened: plan.shortened,
        omitted: plan.omitted,
    };
    (template.replace(SKILLS_PLACEHOLDER, &catalog), listing)
}

/// Which entries are listed, how long their descriptions may be, and the note.
struct Plan {
    /// Per entry (in catalog order), whether it is listed.
    kept: Vec<bool>,
    /// The most characters a description keeps; `None` keeps them whole.
    cap: Option<usize>,
    note: Option<String>,
    omitted: usize,
    shortened: usize,
    chars: usize,
}

/// What each entry costs, in characters, with its description whole or shortened.
struct Costs {
    /// Everything but the description.
    fixed: Vec<usize>,
    /// The description's characters before escaping.
    raw: Vec<usize>,
    /// The description's characters once escaped.
    escaped: Vec<usize>,
    /// Where each description has a character escaped as an entity (its index among the
    /// description's characters) and how many characters the entity adds; usually none.
    entities: Vec<Vec<(usize, usize)>>,
}

impl Costs {
    fn new(entries: &[Entry<'_>]) -> Self {
        let fixed_text =
            ENTRY_START.len() + NAME_END.len() + DESCRIPTION_END.len() + ENTRY_END.len();
        let mut costs = Self {
            fixed: Vec::with_capacity(entries.len()),
            raw: Vec::with_capacity(entries.len()),
            escaped: Vec::with_capacity(entries.len()),
            entities: Vec::with_capacity(entries.len()),
        };
        for entry in entries {
            costs.fixed.push(
                fixed_text
                    + escaped_len(&entry.name)
                    + entry.risk.map_or(0, |tier| risk_line(tier).len())
                    + entry
                        .lookalike
                        .as_deref()
                        .map_or(0, |text| lookalike_line(text).chars().count()),
            );
            let mut raw = 0;
            let mut entities = Vec::new();
            if entry.description.is_ascii() && !needs_escaping(&entry.description) {
                raw = entry.description.len();
            } else {
                for character in entry.description.chars() {
                    let chars = escaped_chars(character);
                    if chars > 1 {
                        entities.push((raw, chars - 1));
                    }
                    raw += 1;
                }
            }
            let added: usize = entities.iter().map(|(_, added)| added).sum();
            costs.raw.push(raw);
            costs.escaped.push(raw + added);
            costs.entities.push(entities);
        }
        costs
    }

    /// The characters of entry `i` with its description cut to `cap` characters.
    fn entry(&self, i: usize, cap: Option<usize>) -> usize {
        let description = match cap {
            Some(cap) if self.raw[i] > cap => {
                // The first `cap - 1` characters, escaped, and the ellipsis.
                let kept = cap - 1;
                let added: usize = self.entities[i]
                    .iter()
                    .take_while(|(at, _)| *at < kept)
                    .map(|(_, added)| added)
                    .sum();
                kept + added + 1
            }
            _ => self.escaped[i],
        };
        self.fixed[i] + description
    }

    /// Whether entry `i` is shortened at `cap`.
    fn is_shortened(&self, i: usize, cap: Option<usize>) -> bool {
        cap.is_some_and(|cap| self.raw[i] > cap)
    }

    /// The characters of the listing of the `kept` entries at `cap`, with the note for
    /// `omitted` skills left out; and how many descriptions are shortened.
    fn total(
        &self,
        kept: &[usize],
        cap: Option<usize>,
        omitted: usize,
    ) -> (usize, usize, Option<String>) {
        let entries: usize = kept.iter().map(|&i| self.entry(i, cap)).sum();
        let shortened = kept.iter().filter(|&&i| self.is_shortened(i, cap)).count();
        let joins = kept.len().saturating_sub(1);
        let note = note(omitted, shortened > 0);
        let note_chars = note.as_ref().map_or(0, |note| {
            note.chars().count() + usize::from(!kept.is_empty())
        });
        (entries + joins + note_chars, shortened, note)
    }

    /// The largest description cap at which the `kept` entries fit in `budget` with the note for
    /// `omitted` skills: `Some(None)` when whole descriptions fit, `None` when nothing fits, not
    /// even [`MIN_DESCRIPTION_CHARS`].
    fn best_cap(&self, kept: &[usize], omitted: usize, budget: usize) -> Option<Option<usize>> {
        if self.total(kept, None, omitted).0 <= budget {
            return Some(None);
        }
        let longest = kept.iter().map(|&i| self.raw[i]).max().unwrap_or(0);
        let fits = |cap: usize| self.total(kept, Some(cap), omitted).0 <= budget;
        if longest <= MIN_DESCRIPTION_CHARS || !fits(MIN_DESCRIPTION_CHARS) {
            return None;
        }
        // The total only grows with the cap below `longest`: the largest cap that fits.
        let (mut low, mut high) = (MIN_DESCRIPTION_CHARS, longest - 1);
        while low < high {
            let middle = low + (high - low).div_ceil(2);
            if fits(middle) {
                low = middle;
            } else {
                high = middle - 1;
            }
        }
        Some(Some(low))
    }
}

/// Fits the entries in the budget. When all of them fit whole, they are all listed as they are
/// (the reference's catalog). Otherwise descriptions are shortened fairly: every description
/// longer than a common cap is cut to it, the cap as large as the budget allows and never below
/// [`MIN_DESCRIPTION_CHARS`], so the longest are cut first and most. When even that is too long,
/// whole skills are left out, lowest priority first: the skills named in the rules come first
/// (in their order), then by scope (explicit, project, user, admin), then by name; the
/// descriptions of those kept are then given the largest cap that fits again. A note then says
/// how many skills are not listed and that `search_skills` finds them.
fn fit(entries: &[Entry<'_>], rules: &ListingRules) -> Plan {
    let costs = Costs::new(entries);
    let all: Vec<usize> = (0..entries.len()).collect();
    let plan = |kept: &[usize], cap: Option<usize>, omitted: usize| {
        let (chars, shortened, note) = costs.total(kept, cap, omitted);
        let mut listed = vec![false; entries.len()];
        for &i in kept {
            listed[i] = true;
        }
        Plan {
            kept: listed,
            cap,
            note,
            omitted,
            shortened,
            chars,
        }
    };
    if let Some(cap) = costs.best_cap(&all, 0, rules.budget) {
        return plan(&all, cap, 0);
    }
    let first: HashMap<&str, usize> = rules
        .first
        .iter()
        .enumerate()
        .rev()
        .map(|(rank, name)| (name.as_str(), rank))
        .collect();
    let mut by_priority = all;
    by_priority.sort_by_key(|&i| {
        let entry = &entries[i];
        (
            first.get(&*entry.name).copied().unwrap_or(usize::MAX),
            entry.scope,
            &entry.name,
            &entry.description,
            entry.risk,
        )
    });
    // Keep the most important entries while they fit at the smallest cap, with the note: the
    // cap search below can always do at least as well.
    let at_least = Some(MIN_DESCRIPTION_CHARS);
    let mut used = 0;
    let mut count = 0;
    let mut any_shortened = false;
    // The note's length changes only with the number of digits of `omitted`, the plural and
    // the mention of shortened descriptions: written once per such change, not once per skill.
    let mut note_chars_of: Option<((usize, bool, bool), usize)> = None;
    for (kept, &i) in by_priority.iter().enumerate() {
        let with = used + costs.entry(i, at_least) + usize::from(kept > 0);
        let shortened = any_shortened || costs.is_shortened(i, at_least);
        let omitted = entries.len() - kept - 1;
        let shape = (
            omitted.checked_ilog10().unwrap_or(0) as usize,
            omitted == 1,
            shortened,
        );
        let note_chars = match note_chars_of {
            Some((cached, chars)) if cached == shape && omitted > 0 => chars,
            _ => {
                let chars = note(omitted, shortened).map_or(0, |note| note.chars().count() + 1);
                note_chars_of = Some((shape, chars));
                chars
            }
        };
        if with + note_chars > rules.budget {
            break;
        }
        used = with;
        count = kept + 1;
        any_shortened = shortened;
    }
    let kept = &by_priority[..count];
    let omitted = entries.len() - count;
    let cap = costs
        .best_cap(kept, omitted, rules.budget)
        .unwrap_or(at_least);
    plan(kept, cap, omitted)
}

/// The note after the entries: how many skills are left out, whether descriptions are
/// shortened, and that `search_skills` finds what is missing. `None` when nothing is cut.
fn note(omitted: usize, shortened: bool) -> Option<String> {
    const SHORTENED: &str =
        "Descriptions ending in \u{2026} are shortened; `search_skills` returns them in full.";
    match (omitted, shortened) {
        (0, false) => None,
        (0, true) => Some(format!("  ({SHORTENED})")),
        (omitted, shortened) => {
            let (count, verb) = if omitted == 1 {
                ("1 more skill".to_owned(), "is")
            } else {
                (format!("{omitted} more skills"), "are")
            };
            let shortened = if shortened {
                format!(" {SHORTENED}")
            } else {
                String::new()
            };
            Some(format!(
                "  ({count} {verb} not listed here. To find skills for a task, call `search_skills` with a few words about it; `load_skill` takes any skill's exact name, listed or not.{shortened})"
            ))
        }
    }
}

/// The catalog text of `plan`.
fn render(entries: &[Entry<'_>], plan: &Plan) -> String {
    let mut lines: Vec<String> = entries
        .iter()
        .zip(&plan.kept)
        .filter(|(_, kept)| **kept)
        .map(|(entry, _)| {
            let description = match plan.cap {
                Some(cap) if entry.description.chars().count() > cap => {
                    let mut cut: String = entry.description.chars().take(cap - 1).collect();
                    cut.push(ELLIPSIS);
                    escape_xml(&cut)
                }
                _ => escape_xml(&entry.description),
            };
            let risk = entry.risk.map(risk_line).unwrap_or_default();
            let lookalike = entry
                .lookalike
                .as_deref()
                .map(lookalike_line)
                .unwrap_or_default();
            format!(
                "{ENTRY_START}{}{NAME_END}{description}{DESCRIPTION_END}{risk}{lookalike}{ENTRY_END}",
                escape_xml(&entry.name)
            )
        })
        .collect();
    lines.extend(plan.note.clone());
    lines.join("\n")
}

/// The characters of `text` once escaped.
fn escaped_len(text: &str) -> usize {
    text.chars().map(escaped_chars).sum()
}

//! Finds the skill, resource or script a model meant among the names it was shown.
//!
//! Only names in the list can ever be returned: the list is the allow-list, so a name like
//! `../secret` or `%2e%2e/x` simply matches nothing.

/// What a requested name resolved to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Resolution {
    /// The index of the one name that fits.
    Found(usize),
    /// Several names fit equally; the model must pick one.
    Ambiguous(Vec<String>),
    /// Nothing fits; the closest names, best first (possibly none).
    NotFound(Vec<String>),
}

const MAX_SUGGESTIONS: usize = 3;
/// Longer requests are compared by this prefix only, so a hostile name costs bounded time.
const MAX_COMPARED_CHARS: usize = 256;

/// Resolves `requested` among `names`: exactly; then ignoring case; then allowing a dropped
/// extension or leading directories (`references/FAQ` or `FAQ.md` or `FAQ` for
/// `references/FAQ.md`) or an added extension (`style-guide.md` for `style-guide`).
pub(crate) fn resolve(requested: &str, names: &[&str]) -> Resolution {
    if let Some(index) = names.iter().position(|name| *name == requested) {
        return Resolution::Found(index);
    }
    let requested_lower = requested.to_lowercase();
    let lowered: Vec<String> = names.iter().map(|name| name.to_lowercase()).collect();
    let fitting = |fits: &dyn Fn(&str) -> bool| -> Vec<usize> {
        (0..names.len()).filter(|&i| fits(&lowered[i])).collect()
    };
    for matches in [
        fitting(&|name| name == requested_lower),
        fitting(&|name| loosely_fits(&requested_lower, name)),
    ] {
        match matches.as_slice() {
            [] => continue,
            [index] => return Resolution::Found(*index),
            several => {
                return Resolution::Ambiguous(
                    several.iter().map(|&i| names[i].to_owned()).collect(),
                );
            }
        }
    }
    Resolution::NotFound(closest(&requested_lower, names, &lowered))
}

/// The name of `names` that `requested` means, found as `load_skill` finds a skill (exactly,
/// then ignoring case, then by the forgiving matches): `Ok` with its index, or `Err` with the
/// names to suggest instead (several that fit equally, or the closest, best first; possibly
/// none). For hosts that take a skill's name from a person (`skills run --skill NAME`).
///
/// # Errors
/// No name, or several equally, fit `requested`: the names to suggest.
///
/// # Example
/// ```
/// let names = ["unit-converter", "pdf-tools"];
/// assert_eq!(skillful_provider::find_name("unit-converter", &names), Ok(0));
/// assert_eq!(
///     skillful_provider::find_name("unit-convertor", &names),
///     Err(vec!["unit-converter".to_owned()])
/// );
/// ```
pub fn find_name(requested: &str, names: &[&str]) -> Result<usize, Vec<String>> {
    match resolve(requested, names) {
        Resolution::Found(index) => Ok(index),
        Resolution::Ambiguous(names) | Resolution::NotFound(names) => Err(names),
    }
}

/// Whether `requested` names `name` with its leading directories or its extension left off, or
/// with an extension added to an extensionless name. Both are lowercase.
fn loosely_fits(requested: &str, name: &str) -> bool {
    let without_added_extension = strip_extension(requested);
    path_suffixes(name).any(|suffix| {
        let suffix_stem = strip_extension(suffix);
        let dropped = requested == suffix || requested == suffix_stem;
        let added = without_added_extension != requested
            && suffix_stem == suffix
            && without_added_extension == suffix;
        dropped || added
    })
}

/// `a/b/c.md`, `b/c.md`, `c.md`.
fn path_suffixes(name: &str) -> impl Iterator<Item = &str> {
    std::iter::once(name).chain(name.match_indices('/').map(|(i, _)| &name[i + 1..]))
}

/// `c.md` -> `c`; `c`, `.env` and `a.d/c` unchanged.
fn strip_extension(name: &str) -> &str {
    let file_start = name.rfind('/').map_or(0, |i| i + 1);
    match name[file_start..].rfind('.') {
        Some(dot) if dot > 0 && file_start + dot + 1 < name.len() => &name[..file_start + dot],
        _ => name,
    }
}

/// Up to three names within an edit distance of a quarter of `requested`'s length (at least 1),
/// comparing whole names and file names; closest first, ties in list order.
fn closest(requested: &str, names: &[&str], lowered: &[String]) -> Vec<String> {
    let requested: Vec<char> = requested.chars().take(MAX_COMPARED_CHARS).collect();
    let threshold = (requested.len() / 4).max(1);
    let mut scored: Vec<(usize, usize)> = lowered
        .iter()
        .enumerate()
        .filter_map(|(index, name)| {
            let file_name = name.rsplit('/').next().unwrap_or(name);
            let distance =
                edit_distance(&requested, name).min(edit_distance(&requested, file_name));
            (distance <= threshold).then_some((distance, index))
        })
        .collect();
    scored.sort_unstable();
    scored
        .into_iter()
        .take(MAX_SUGGESTIONS)
        .map(|(_, index)| names[index].to_owned())
        .collect()
}

/// The Levenshtein distance (insertions, deletions, substitutions of chars).
fn edit_distance(a: &[char], b: &str) -> usize {
    let b: Vec<char> = b.chars().take(MAX_COMPARED_CHARS).collect();
    let mut previous: Vec<usize> = (0..=b.len()).collect();
    let mut current = vec![0; b.len() + 1];
    for (i, &a_char) in a.iter().enumerate() {
        current[0] = i + 1;
        for (j, &b_char) in b.iter().enumerate() {
            let substitution = previous[j] + usize::from(a_char != b_char);
            current[j + 1] = substitution.min(previous[j + 1] + 1).min(current[j] + 1);
        }
        std::mem::swap(&mut previous, &mut current);
    }
    previous[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn distance(a: &str, b: &str) -> usize {
        edit_distance(&a.chars().collect::<Vec<_>>(), b)
    }

    #[test]
    fn edit_distance_counts_single_char_edits() {
        assert_eq!(distance("", ""), 0);
        assert_eq!(distance("kitten", "sitting"), 3);
        assert_eq!(distance("abc", ""), 3);
        assert_eq!(distance("", "abc"), 3);
        assert_eq!(distance("flaw", "lawn"), 2);
        assert_eq!(distance("héllo", "hello"), 1);
    }

    #[test]
    fn strip_extension_only_touches_the_file_name() {
        assert_eq!(strip_extension("references/faq.md"), "references/faq");
        assert_eq!(strip_extension("a.d/faq"), "a.d/faq");
        assert_eq!(strip_extension(".env"), ".env");
        assert_eq!(strip_extension("faq."), "faq.");
        assert_eq!(strip_extension("archive.tar.gz"), "archive.tar");
    }

    #[test]
    fn an_added_extension_fits_only_an_extensionless_name() {
        assert!(loosely_fits("style-guide.md", "style-guide"));
        assert!(!loosely_fits("faq.txt", "references/faq.md"));
    }

    #[test]
    fn a_dropped_middle_directory_does_not_fit() {
        assert!(!loosely_fits("a/c.md", "a/b/c.md"));
        assert!(loosely_fits("b/c", "a/b/c.md"));
    }
}

//! Names like a name asked for: the "did you mean" of a skill, a host, an option.

/// Of `offered`, the name most like `wanted`: one holding it or held by it
/// (`react-best-practices` in `vercel-react-best-practices`), else the nearest within a few
/// edits (`pfd` for `pdf`); `None` when none is near. Case is ignored in `wanted`.
///
/// # Example
/// ```
/// use skillful_discovery::closest_name;
/// assert_eq!(closest_name("pfd", ["pdf", "docx"]), Some("pdf"));
/// assert_eq!(closest_name("react", ["vercel-react-best-practices"]), Some("vercel-react-best-practices"));
/// assert_eq!(closest_name("spreadsheet", ["pdf"]), None);
/// ```
pub fn closest_name<'a, I>(wanted: &str, offered: I) -> Option<&'a str>
where
    I: IntoIterator<Item = &'a str>,
    I::IntoIter: Clone,
{
    let wanted = wanted.to_lowercase();
    let offered = offered.into_iter();
    if let Some(holding) = offered
        .clone()
        .find(|name| name.contains(&wanted) || wanted.contains(name))
    {
        return Some(holding);
    }
    let most = (wanted.chars().count() / 3).max(2);
    offered
        .map(|name| (strsim::damerau_levenshtein(&wanted, name), name))
        .filter(|(distance, _)| *distance <= most)
        .min_by_key(|(distance, _)| *distance)
        .map(|(_, name)| name)
}

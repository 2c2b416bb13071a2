//! URLs as they may be shown: without the parts that can hold credentials.

/// `url` as it may be printed (errors, `Debug`, logs): without userinfo (`user:pass@`), query
/// string or fragment, which is where endpoints carry credentials (`?key=…`, `?api-key=…`).
///
/// It works on text, so it also redacts what no URL parser accepts: everything up to the last `@`
/// before the query goes (a password may hold a `/`).
///
/// # Example
/// ```
/// use skillful_http::redact_url;
///
/// assert_eq!(
///     redact_url("https://user:pass@api.example.com/v1?api-key=secret"),
///     "https://api.example.com/v1"
/// );
/// ```
pub fn redact_url(url: &str) -> String {
    let (scheme, rest) = match url.find("://") {
        Some(at) => url.split_at(at + "://".len()),
        None => ("", url),
    };
    let before_query = rest.split(['?', '#']).next().unwrap_or_default();
    let location = before_query
        .rsplit_once('@')
        .map_or(before_query, |(_, location)| location);
    format!("{scheme}{location}")
}

//! The environment a child runs in: a short allow-list of the host's variables, plus the
//! caller's own additions; never the host's whole environment.

use std::ffi::{OsStr, OsString};

/// The host variables every child inherits (scripts, MCP stdio servers, the engine), to which
/// each caller adds the names it needs: what programs
/// need to find each other, their home and temporary directories, and the locale and time zone.
/// The Windows names (`SYSTEMROOT` onwards) are only ever set on Windows.
pub const DEFAULT_ALLOWED_ENV: [&str; 15] = [
    "PATH",
    "HOME",
    "LANG",
    "LC_ALL",
    "LC_CTYPE",
    "TZ",
    "TMPDIR",
    "SYSTEMROOT",
    "WINDIR",
    "SYSTEMDRIVE",
    "TEMP",
    "TMP",
    "PATHEXT",
    "COMSPEC",
    "USERPROFILE",
];

/// The variables of this process's environment that a child process of the host may inherit:
/// those named in [`DEFAULT_ALLOWED_ENV`], then those named in `also_allowed`, in that order.
/// What scripts get by default, what `skillful-mcp` gives the MCP servers it starts and what
/// `skillful-engine` gives the engine.
///
/// # Example
/// ```
/// let environment = skillful_process::allowed_environment(["PYTHONPATH"]);
/// assert!(environment.iter().all(|(name, _)| name != "OPENAI_API_KEY"));
/// ```
pub fn allowed_environment<I>(also_allowed: I) -> Vec<(OsString, OsString)>
where
    I: IntoIterator,
    I::Item: Into<String>,
{
    let allowed: Vec<String> = DEFAULT_ALLOWED_ENV
        .iter()
        .map(|name| (*name).to_owned())
        .chain(also_allowed.into_iter().map(Into::into))
        .collect();
    let host: Vec<(OsString, OsString)> = std::env::vars_os().collect();
    filter_environment(&host, &allowed, &[])
}

/// The variables of `host` whose names are in `allowed`, in `allowed`'s order, then `added`
/// (which override inherited ones of the same name). Names compare exactly, except on Windows,
/// where case is ignored as Windows ignores it.
///
/// # Example
/// ```
/// use std::ffi::OsString;
///
/// let host = [("PATH".into(), "/usr/bin".into()), ("OPENAI_API_KEY".into(), "sk-1".into())];
/// let environment = skillful_process::filter_environment(
///     &host,
///     &["PATH".to_owned()],
///     &[(OsString::from("MODE"), OsString::from("test"))],
/// );
/// assert_eq!(environment, [("PATH".into(), "/usr/bin".into()), ("MODE".into(), "test".into())]);
/// ```
pub fn filter_environment(
    host: &[(OsString, OsString)],
    allowed: &[String],
    added: &[(OsString, OsString)],
) -> Vec<(OsString, OsString)> {
    let mut environment: Vec<(OsString, OsString)> = Vec::new();
    let mut set = |name: &OsStr, value: &OsStr| match environment
        .iter_mut()
        .find(|(existing, _)| same_name(existing, name))
    {
        Some(slot) => slot.1 = value.to_owned(),
        None => environment.push((name.to_owned(), value.to_owned())),
    };
    for name in allowed {
        if let Some((name, value)) = host
            .iter()
            .find(|(host_name, _)| same_name(host_name, OsStr::new(name)))
        {
            set(name, value);
        }
    }
    for (name, value) in added {
        set(name, value);
    }
    environment
}

fn same_name(a: &OsStr, b: &OsStr) -> bool {
    if cfg!(windows) {
        a.eq_ignore_ascii_case(b)
    } else {
        a == b
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vars(pairs: &[(&str, &str)]) -> Vec<(OsString, OsString)> {
        pairs
            .iter()
            .map(|(name, value)| (OsString::from(name), OsString::from(value)))
            .collect()
    }

    #[test]
    fn only_allowed_host_variables_pass_and_additions_override_them() {
        let host = vars(&[
            ("OPENAI_API_KEY", "sk-secret"),
            ("PATH", "/usr/bin"),
            ("LANG", "C.UTF-8"),
            ("HOME", "/root"),
        ]);
        let allowed = ["PATH".to_owned(), "HOME".to_owned(), "TZ".to_owned()];
        let added = vars(&[("HOME", "/sandbox"), ("SKILL_MODE", "test")]);
        assert_eq!(
            filter_environment(&host, &allowed, &added),
            vars(&[
                ("PATH", "/usr/bin"),
                ("HOME", "/sandbox"),
                ("SKILL_MODE", "test")
            ])
        );
    }
}

//! What `skills add SOURCE` names: a git repository or a local directory, and a ref.

use std::path::{Path, PathBuf};

use crate::InstallError;

/// Where skills come from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// A git repository: the URL `git` is given (`https://`, `ssh://`, `file://`, `git://`,
    /// `http://`, `git@host:path`; an `owner/repo` shorthand becomes `https://github.com/owner/repo.git`).
    Git {
        /// The URL.
        url: String,
        /// The tag, branch or commit (full, or abbreviated to 4 or more hexadecimal digits)
        /// asked for (`@REF`); none means the remote's `HEAD`.
        reference: Option<String>,
    },
    /// A local directory (absolute, links resolved), copied as it is.
    Local(PathBuf),
}

impl Source {
    /// Reads `text` as `skills add` takes it: a URL or shorthand with an optional `@REF`, or
    /// an existing directory.
    ///
    /// # Errors
    /// [`InstallError::Source`] when `text` is none of these.
    pub fn parse(text: &str) -> Result<Self, InstallError> {
        let refuse = |reason: &str| InstallError::Source {
            source_text: text.to_owned(),
            reason: reason.to_owned(),
        };
        if text.starts_with('-') || text.chars().any(char::is_control) {
            return Err(refuse(
                "a source may not start with '-' or hold control characters",
            ));
        }
        let is_url = ["https://", "http://", "ssh://", "file://", "git://"]
            .iter()
            .any(|scheme| text.starts_with(scheme));
        let scp_like = !is_url
            && text.split_once(':').is_some_and(|(host, _)| {
                host.contains('@') && !host.contains('/') && !host.is_empty()
            });
        if !is_url && !scp_like && Path::new(text).is_dir() {
            // Absolute and resolved: the lock records it, and is read from other directories.
            let dir = std::fs::canonicalize(text)
                .map_err(|error| refuse(&format!("the directory cannot be resolved ({error})")))?;
            return Ok(Self::Local(dir));
        }
        // `@REF` after the last path segment's start (the `@` of `git@host:` comes before it).
        let last_slash = text.rfind(['/', ':']).map_or(0, |at| at + 1);
        let (base, reference) = match text[last_slash..].rfind('@') {
            Some(at) => {
                let at = last_slash + at;
                (&text[..at], Some(text[at + 1..].to_owned()))
            }
            None => (text, None),
        };
        if let Some(reference) = &reference
            && (reference.is_empty()
                || reference.starts_with('-')
                || reference.contains("..")
                || reference.chars().any(|c| c.is_whitespace() || c == ':'))
        {
            return Err(refuse("the @REF is not a tag, branch or commit name"));
        }
        let url = if is_url || scp_like {
            base.to_owned()
        } else {
            let parts: Vec<&str> = base.split('/').collect();
            let name = |part: &&str| {
                !part.is_empty()
                    && !part.starts_with('.')
                    && part
                        .chars()
                        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
            };
            if parts.len() != 2 || !parts.iter().all(name) {
                return Err(refuse(
                    "give a git URL (https://, ssh://, file://, git@host:path), owner/repo, or an existing directory",
                ));
            }
            format!(
                "https://github.com/{}/{}.git",
                parts[0],
                parts[1].trim_end_matches(".git")
            )
        };
        Ok(Self::Git { url, reference })
    }

    /// Reads `text` as [`Source::parse`] does, and also a GitHub page of a directory,
    /// `https://github.com/OWNER/REPO/tree/REF/PATH` (as a browser shows it, and as users of
    /// `npx skills` and `gh skill` paste it): the repository at `REF`, and `PATH` (none for
    /// the repository's root) to pick skills below. A `REF` holding a `/` cannot be told from
    /// the path: give it as `OWNER/REPO@REF --path PATH`.
    ///
    /// # Errors
    /// As [`Source::parse`].
    ///
    /// ```
    /// use skillful_install::Source;
    /// let (source, path) =
    ///     Source::parse_located("https://github.com/openai/skills/tree/main/skills/.curated").unwrap();
    /// assert_eq!(source, Source::Git {
    ///     url: "https://github.com/openai/skills.git".into(),
    ///     reference: Some("main".into()),
    /// });
    /// assert_eq!(path.as_deref(), Some("skills/.curated"));
    /// ```
    pub fn parse_located(text: &str) -> Result<(Self, Option<String>), InstallError> {
        let page = text.strip_prefix("https://github.com/").and_then(|rest| {
            let mut parts = rest.splitn(5, '/');
            let (owner, repo, tree, reference) =
                (parts.next()?, parts.next()?, parts.next()?, parts.next()?);
            let path = parts.next().map(|path| path.trim_end_matches('/'));
            (tree == "tree" && !reference.is_empty()).then_some((owner, repo, reference, path))
        });
        let Some((owner, repo, reference, path)) = page else {
            return Ok((Self::parse(text)?, None));
        };
        let source = Self::parse(&format!("{owner}/{repo}@{reference}"))?;
        let path = path.filter(|path| !path.is_empty()).map(str::to_owned);
        Ok((source, path))
    }

    /// The scheme (`git://` or `http://`) of a git URL that neither authenticates its server
    /// nor encrypts what it fetches, when its host is not this machine (`127.0.0.0/8`, `::1`,
    /// `localhost`): anyone on the network path could change what is fetched. Such sources
    /// are taken (the scan, the question and the lock's digests still apply); the caller warns.
    ///
    /// ```
    /// use skillful_install::Source;
    /// let source = |text| Source::parse(text).unwrap();
    /// assert_eq!(source("git://example.com/r.git").plain_transport(), Some("git://"));
    /// assert_eq!(source("git://127.0.0.1:9418/r.git").plain_transport(), None);
    /// assert_eq!(source("https://example.com/r.git").plain_transport(), None);
    /// ```
    pub fn plain_transport(&self) -> Option<&'static str> {
        let Self::Git { url, .. } = self else {
            return None;
        };
        let (scheme, rest) = ["git://", "http://"]
            .into_iter()
            .find_map(|scheme| url.strip_prefix(scheme).map(|rest| (scheme, rest)))?;
        let authority = rest.split('/').next().unwrap_or_default();
        let host_port = authority.rsplit('@').next().unwrap_or_default();
        let host = match host_port.strip_prefix('[') {
            Some(bracketed) => bracketed.split(']').next().unwrap_or_default(),
            None => host_port.split(':').next().unwrap_or_default(),
        };
        let loopback = host.eq_ignore_ascii_case("localhost")
            || host
                .parse::<std::net::IpAddr>()
                .is_ok_and(|address| address.is_loopback());
        (!loopback).then_some(scheme)
    }

    /// The source as the lock file records it (the URL, or the directory).
    pub fn location(&self) -> String {
        match self {
            Self::Git { url, .. } => url.clone(),
            Self::Local(dir) => dir.display().to_string(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn git(url: &str, reference: Option<&str>) -> Source {
        Source::Git {
            url: url.to_owned(),
            reference: reference.map(str::to_owned),
        }
    }

    #[test]
    fn github_directory_pages_are_a_repository_a_ref_and_a_path() {
        let located = |text| Source::parse_located(text).unwrap();
        assert_eq!(
            located("https://github.com/vercel-labs/agent-skills/tree/v2/skills/react/"),
            (
                git(
                    "https://github.com/vercel-labs/agent-skills.git",
                    Some("v2")
                ),
                Some("skills/react".to_owned())
            )
        );
        assert_eq!(
            located("https://github.com/obra/superpowers/tree/main"),
            (
                git("https://github.com/obra/superpowers.git", Some("main")),
                None
            )
        );
        // Anything else is read as parse reads it.
        assert_eq!(
            located("https://github.com/obra/superpowers"),
            (git("https://github.com/obra/superpowers", None), None)
        );
        assert_eq!(located("owner/repo@v1").1, None);
        assert!(Source::parse_located("https://github.com/a/b/tree/-x/p").is_err());
    }

    #[test]
    fn plain_transports_off_this_machine_are_named() {
        let plain = |text| Source::parse(text).unwrap().plain_transport();
        assert_eq!(plain("git://example.com/r.git@v1"), Some("git://"));
        assert_eq!(plain("http://u@10.0.0.1:8080/r.git"), Some("http://"));
        assert_eq!(plain("git://127.0.0.2/r.git"), None);
        assert_eq!(plain("git://[::1]:9418/r.git"), None);
        assert_eq!(plain("http://LOCALHOST/r.git"), None);
        assert_eq!(plain("git://localhost.example.com/r.git"), Some("git://"));
        assert_eq!(plain("ssh://u@h/r.git"), None);
        assert_eq!(plain("owner/repo"), None);
    }

    #[test]
    fn sources_parse() {
        assert_eq!(
            Source::parse("anthropics/skills").unwrap(),
            git("https://github.com/anthropics/skills.git", None)
        );
        assert_eq!(
            Source::parse("owner/repo@v1.2").unwrap(),
            git("https://github.com/owner/repo.git", Some("v1.2"))
        );
        assert_eq!(
            Source::parse("git@github.com:o/r.git@main").unwrap(),
            git("git@github.com:o/r.git", Some("main"))
        );
        assert_eq!(
            Source::parse("git@github.com:o/r.git").unwrap(),
            git("git@github.com:o/r.git", None)
        );
        assert_eq!(
            Source::parse("file:///srv/repo.git@abc123").unwrap(),
            git("file:///srv/repo.git", Some("abc123"))
        );
        assert_eq!(
            Source::parse("ssh://u@h/r.git").unwrap(),
            git("ssh://u@h/r.git", None)
        );
        assert!(Source::parse("--upload-pack=evil").is_err());
        assert!(Source::parse("owner/repo@-x").is_err());
        assert!(Source::parse("one/two/three").is_err());
        assert!(Source::parse("../x/y").is_err());
    }
}

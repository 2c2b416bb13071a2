//! What `skills add SOURCE` names: a git repository or a local directory, and a ref.

use std::path::{Path, PathBuf};

use crate::InstallError;

/// Where skills come from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// A git repository: the URL `git` is given (`https://`, `ssh://`, `file://`,
    /// `git@host:path`; an `owner/repo` shorthand becomes `https://github.com/owner/repo.git`).
    Git {
        /// The URL.
        url: String,
        /// The tag, branch or commit asked for (`@REF`); none means the remote's `HEAD`.
        reference: Option<String>,
    },
    /// A local directory, copied as it is.
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
            return Ok(Self::Local(PathBuf::from(text)));
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

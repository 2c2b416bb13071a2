//! What a `skill://` URI names: [`Target`].

use super::catalog::SCHEME;

/// What a `skill://` URI asks for.
pub(super) enum Target<'a> {
    /// The draft index, `skill://index.json`.
    Index,
    /// A skill's archive, `skill://NAME.tar.gz`.
    Archive(&'a str),
    /// A file of a skill, `skill://NAME/PATH`.
    File {
        /// The skill's name.
        skill: &'a str,
        /// The file's path in the skill.
        file: &'a str,
    },
}

impl<'a> Target<'a> {
    /// What `uri` asks for; `None` for a URI outside the `skill://` scheme or with no file.
    pub(super) fn parse(uri: &'a str) -> Option<Self> {
        let rest = uri.strip_prefix(SCHEME)?;
        if rest == "index.json" {
            return Some(Target::Index);
        }
        if let Some(name) = rest.strip_suffix(".tar.gz")
            && !name.contains('/')
        {
            return Some(Target::Archive(name));
        }
        let (skill, file) = rest.split_once('/')?;
        Some(Target::File { skill, file })
    }
}

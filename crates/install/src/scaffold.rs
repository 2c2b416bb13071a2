//! A new skill's files: `SKILL.md` with valid frontmatter, `references/`, `scripts/` and the
//! `evals/` that `skills eval` reads, for `skills init` and `cargo xtask new-skill` alike.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use skillful_core::validate::ValidationMode;
use skillful_frontmatter::FrontmatterLoader;

/// A skill [`scaffold_skill`] wrote.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Scaffolded {
    /// The skill's directory.
    pub dir: PathBuf,
    /// The skill's name, as its frontmatter and its directory carry it.
    pub name: String,
    /// The name asked for, when it was not a valid name and [`skill_dir_name`] made it one.
    pub asked: Option<String>,
    /// The files written, relative to `dir`.
    pub files: Vec<&'static str>,
}

/// Why a skill could not be scaffolded; nothing was written, or (for [`ScaffoldError::Io`])
/// the directory holds what was written before the failure.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ScaffoldError {
    /// No valid name could be made of the one asked for.
    #[error("`{asked}` is not a valid skill name: {reasons}")]
    InvalidName {
        /// The name asked for.
        asked: String,
        /// What the specification's strict rules say of it.
        reasons: String,
    },
    /// The skill's directory, or its `SKILL.md`, exists already.
    #[error("{} already exists; choose another name or remove it first", path.display())]
    Exists {
        /// What exists.
        path: PathBuf,
    },
    /// A file or directory could not be written.
    #[error("cannot write {}: {source}", path.display())]
    Io {
        /// The path.
        path: PathBuf,
        /// The failure.
        source: std::io::Error,
    },
}

/// The files of a new skill called `{{name}}`: relative path and template.
const TEMPLATES: &[(&str, &str)] = &[
    (
        "SKILL.md",
        include_str!("../templates/skill/SKILL.md.template"),
    ),
    (
        "references/REFERENCE.md",
        include_str!("../templates/skill/REFERENCE.md.template"),
    ),
    ("scripts/.gitkeep", ""),
    // Empty, for `skills eval`: test cases and trigger queries are the author's to write.
    (
        "evals/evals.json",
        include_str!("../templates/skill/evals.json.template"),
    ),
    (
        "evals/triggers.json",
        include_str!("../templates/skill/triggers.json.template"),
    ),
];

/// The name a skill called `name` is given on disk and in its frontmatter: lowercase ASCII
/// letters and digits, each run of anything else (spaces, `_`, `.`) one hyphen, none at either
/// end. `Zoho Books Automation` is `zoho-books-automation`; a valid name is itself.
///
/// ```
/// use skillful_install::skill_dir_name;
/// assert_eq!(skill_dir_name("Zoho Books Automation"), "zoho-books-automation");
/// assert_eq!(skill_dir_name("pdf_tools v2"), "pdf-tools-v2");
/// assert_eq!(skill_dir_name("unit-converter"), "unit-converter");
/// ```
pub fn skill_dir_name(name: &str) -> String {
    let mut normalised = String::with_capacity(name.len());
    for c in name.chars() {
        if c.is_ascii_alphanumeric() {
            normalised.push(c.to_ascii_lowercase());
        } else if !normalised.is_empty() && !normalised.ends_with('-') {
            normalised.push('-');
        }
    }
    normalised.trim_end_matches('-').to_owned()
}

/// Writes a new skill called `name` into `dir` (created if missing; it may hold other files, as
/// the directory a user is in does, but none of the skill's): `SKILL.md` whose frontmatter
/// passes the specification's strict rules, `references/REFERENCE.md`, `scripts/.gitkeep`, and
/// `evals/evals.json` and `evals/triggers.json` for `skills eval`. A name that is not valid is
/// made one ([`skill_dir_name`]; [`Scaffolded::asked`] says so), and it must be `dir`'s name, as
/// the specification requires ([`scaffold_skill_in`] names the directory after the skill).
///
/// # Errors
/// [`ScaffoldError::InvalidName`] when no valid name can be made of `name`, or `dir` is called
/// something else; [`ScaffoldError::Exists`] when one of the skill's files exists already;
/// [`ScaffoldError::Io`] when a file cannot be written.
///
/// # Example
/// ```
/// # let parent = tempfile::tempdir().unwrap();
/// let dir = parent.path().join("pdf-tools");
/// let made = skillful_install::scaffold_skill(&dir, "PDF tools").unwrap();
/// assert_eq!(made.name, "pdf-tools");
/// assert_eq!(made.asked.as_deref(), Some("PDF tools"));
/// assert!(dir.join("evals/evals.json").is_file());
/// ```
pub fn scaffold_skill(dir: &Path, name: &str) -> Result<Scaffolded, ScaffoldError> {
    let valid = skill_dir_name(name);
    let render = |template: &str| template.replace("{{name}}", &valid);
    let skill_md = render(TEMPLATES[0].1);
    if valid.is_empty() {
        return Err(ScaffoldError::InvalidName {
            asked: name.to_owned(),
            reasons: "it has no ASCII letter or digit".to_owned(),
        });
    }
    if let Err(diagnostics) =
        FrontmatterLoader::new(ValidationMode::Strict).load(&skill_md, dir_name(dir).as_deref())
    {
        let reasons: Vec<String> = diagnostics
            .iter()
            .map(|d| format!("{}: {}", d.field, d.message))
            .collect();
        return Err(ScaffoldError::InvalidName {
            asked: name.to_owned(),
            reasons: reasons.join("; "),
        });
    }
    let io = |path: &Path| {
        let path = path.to_owned();
        move |source| ScaffoldError::Io { path, source }
    };
    if let Some(path) = TEMPLATES
        .iter()
        .map(|(file, _)| dir.join(file))
        .find(|path| fs::symlink_metadata(path).is_ok())
    {
        return Err(ScaffoldError::Exists { path });
    }
    fs::create_dir_all(dir).map_err(io(dir))?;
    let mut files = Vec::with_capacity(TEMPLATES.len());
    for (file, template) in TEMPLATES {
        let path = dir.join(file);
        if let Some(parent) = path.parent() {
            fs::create_dir_all(parent).map_err(io(parent))?;
        }
        // `create_new`: a file that appeared meanwhile is not overwritten.
        let mut created = fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&path)
            .map_err(|source| match source.kind() {
                std::io::ErrorKind::AlreadyExists => ScaffoldError::Exists { path: path.clone() },
                _ => ScaffoldError::Io {
                    path: path.clone(),
                    source,
                },
            })?;
        created
            .write_all(render(template).as_bytes())
            .map_err(io(&path))?;
        files.push(*file);
    }
    Ok(Scaffolded {
        dir: dir.to_owned(),
        asked: (valid != name).then(|| name.to_owned()),
        name: valid,
        files,
    })
}

/// The name of `dir` (its last component), when it has one in UTF-8.
fn dir_name(dir: &Path) -> Option<String> {
    let absolute = std::path::absolute(dir).ok()?;
    Some(absolute.file_name()?.to_str()?.to_owned())
}

/// [`scaffold_skill`] into `parent`'s subdirectory named after the skill (`parent/NAME/`).
///
/// # Errors
/// As [`scaffold_skill`].
pub fn scaffold_skill_in(parent: &Path, name: &str) -> Result<Scaffolded, ScaffoldError> {
    scaffold_skill(&parent.join(skill_dir_name(name)), name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_made_valid_and_a_name_without_letters_is_refused() {
        assert_eq!(
            skill_dir_name("  Zoho -- Books__Automation!  "),
            "zoho-books-automation"
        );
        assert_eq!(skill_dir_name("Ünïcode"), "n-code");
        assert_eq!(skill_dir_name("---"), "");
        let parent = tempfile::tempdir().unwrap();
        let refused = scaffold_skill_in(parent.path(), "!!!").unwrap_err();
        assert!(
            matches!(refused, ScaffoldError::InvalidName { ref asked, .. } if asked == "!!!"),
            "{refused}"
        );
        assert_eq!(fs::read_dir(parent.path()).unwrap().count(), 0);
    }

    #[test]
    fn a_skill_is_written_once_into_a_directory_of_its_name() {
        let parent = tempfile::tempdir().unwrap();
        let made = scaffold_skill_in(parent.path(), "Zoho Books Automation").unwrap();
        assert_eq!(made.dir, parent.path().join("zoho-books-automation"));
        assert_eq!(made.asked.as_deref(), Some("Zoho Books Automation"));
        let skill_md = fs::read_to_string(made.dir.join("SKILL.md")).unwrap();
        assert!(
            skill_md.starts_with("---\nname: zoho-books-automation\n"),
            "{skill_md}"
        );
        let evals: serde_json::Value =
            serde_json::from_str(&fs::read_to_string(made.dir.join("evals/evals.json")).unwrap())
                .unwrap();
        assert_eq!(
            evals,
            serde_json::json!({"skill_name": "zoho-books-automation", "evals": []})
        );
        let triggers = fs::read_to_string(made.dir.join("evals/triggers.json")).unwrap();
        assert_eq!(
            serde_json::from_str::<serde_json::Value>(&triggers).unwrap(),
            serde_json::json!([])
        );
        assert_eq!(made.files.len(), 5);
        // Again: refused, and the first skill's files are left as they are.
        let again = scaffold_skill_in(parent.path(), "zoho-books-automation").unwrap_err();
        assert!(
            matches!(again, ScaffoldError::Exists { ref path } if path.ends_with("SKILL.md")),
            "{again}"
        );
        // A directory of another name cannot carry it: the specification wants them equal.
        let other = parent.path().join("Other Name");
        let refused = scaffold_skill(&other, "pdf-tools").unwrap_err();
        assert!(
            matches!(refused, ScaffoldError::InvalidName { .. }),
            "{refused}"
        );
        assert!(!other.exists());
        // Into an existing directory of its name that holds other files.
        let here = parent.path().join("notes");
        fs::create_dir(&here).unwrap();
        fs::write(here.join("README.md"), "mine").unwrap();
        scaffold_skill(&here, "notes").unwrap();
        assert_eq!(fs::read_to_string(here.join("README.md")).unwrap(), "mine");
    }
}

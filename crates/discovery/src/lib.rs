//! Finds file skills (directories holding a `SKILL.md`) under configured roots without ever
//! leaving them, and serves them as [`skillful_core::Skill`]s.
//!
//! Discovery follows the rules of Microsoft Agent Framework: a directory with `SKILL.md` is a
//! skill (and is not searched further for skills); resources and scripts are the files of the
//! skill with a listed extension, named by their `/`-separated path. Skills are looked for down
//! to [`MAX_SKILL_DEPTH`] levels below a root (MAF looks two), entering the hidden directories
//! public repositories keep skills in ([`SKILL_HOLDING_DOT_DIRS`]: `skills/.curated/`,
//! `.claude/skills/`) and no other, so that a cloned repository is read as its authors lay it
//! out; [`skill_dirs`] is the same walk for commands that only need the directories. On top of
//! those rules: no symbolic link below a root is followed, `node_modules` is skipped, a skill's
//! hidden directories hold no resources, one bad skill never hides the others, and only
//! the frontmatter is read at discovery. Bodies and resources are read when asked for, after
//! checking again that the file is still inside its skill and reached without a link.
//!
//! This crate owns the file system side of skills. It does not parse YAML (that is
//! `skillful-frontmatter`), run scripts (that is the [`FileScriptRunner`] it is given), or know
//! about prompts and tools.
//!
//! # Example
//! ```
//! use skillful_core::{ResourceContent, Skill};
//! use skillful_discovery::FileSkillsSource;
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() {
//! # let root = tempfile::tempdir().unwrap();
//! # let skill = root.path().join("unit-converter");
//! # std::fs::create_dir_all(skill.join("references")).unwrap();
//! # std::fs::write(skill.join("SKILL.md"), "---\nname: unit-converter\ndescription: Converts units.\n---\nUse the table.\n").unwrap();
//! # std::fs::write(skill.join("references/table.md"), "1 in = 2.54 cm\n").unwrap();
//! let source = FileSkillsSource::builder().root(root.path()).build().unwrap();
//! let found = source.discover().await;
//! let skill = &found.skills[0];
//! assert_eq!(skill.frontmatter().name, "unit-converter");
//! assert_eq!(skill.document().await.unwrap().body, "Use the table.\n");
//! assert_eq!(skill.resources()[0].name(), "references/table.md");
//! let table = skill.resource("references/table.md").unwrap().read().await.unwrap();
//! assert_eq!(table, ResourceContent::Text("1 in = 2.54 cm\n".into()));
//! # }
//! ```

#![forbid(unsafe_code)]

mod builder;
mod config;
mod guard;
mod head;
pub mod hosts;
mod names;
mod packed;
mod runner;
mod skill;
mod source;
mod validate;
mod walk;

pub use builder::{
    BuildError, DEFAULT_MAX_READ_BYTES, DEFAULT_RESOURCE_EXTENSIONS, DEFAULT_SCRIPT_EXTENSIONS,
    DEFAULT_SEARCH_DEPTH, ExtensionList, FileSkillsSourceBuilder,
};
pub use names::closest_name;
pub use runner::{FileScriptRequest, FileScriptRunner, SharedScriptRunner};
pub use skill::{FileSkill, FileVersion};
pub use source::{Discovery, FileSkillsSource};
pub use validate::{ValidateError, Validation, validate_paths};
pub use walk::{MAX_SKILL_DEPTH, SKILL_HOLDING_DOT_DIRS, SkillDirs, skill_dirs};

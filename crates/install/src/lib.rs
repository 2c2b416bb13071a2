//! Skills from the outside world: fetched, checked, installed, locked and verified.
//!
//! An [`Installer`] works on one scope's skills directory (`~/.agents/skills`, or a project's
//! `.agents/skills`) and its lock file beside it ([`LockFile`], `skills-lock.json`).
//! [`Installer::prepare`] fetches a [`Source`] (one commit of a git repository, shallow, with the
//! `git` command line, its tree checked out in memory when small enough, else into a hidden
//! staging directory beside the skills; or a local directory) and turns every
//! skill found there into a [`Candidate`]: its strict validation, its file manifest (links that
//! leave the skill, special files, unsafe names, case collisions, submodules and oversized files
//! refused), its scripts with their tiers and its scan ([`skillful_scan`]).
//! [`Installer::install`] copies each accepted candidate into a hidden directory beside its
//! final place, checks the copy against the manifest, renames it into place and records it in
//! the lock: an interrupted install leaves at most a hidden directory that no host reads and the
//! next install removes. [`Installer::verify`] compares installed bytes with the lock;
//! [`Installer::remove`] and [`Installer::outdated`] do what they say.
//!
//! `skillful_discovery::hosts` is the one table of agent hosts and their own skills directories
//! (Claude Code's `~/.claude/skills`, ...), where `--agent` installs: each such directory is a
//! scope of its own
//! for an [`Installer`], with its lock beside it (`~/.claude/skills-lock.json`).
//!
//! It knows git, directories, manifests and the lock; what is shown and asked is the caller's.

#![forbid(unsafe_code)]

mod diff;
mod git;
mod lock;
mod report;
mod scaffold;
mod source;

pub use diff::{FileChange, FileDiff, MAX_DIFF_BYTES, MAX_DIFF_LINES, MAX_FILE_DIFF_LINES};
pub use report::{
    InstallOutcome, Installation, LockedOutcome, LockedReport, LockedSkillReport, Offer, Offered,
    OfferedScript, OutdatedReport, Removal, Replacement, RolledBack, SkillUpdate, UpdateReport,
    Verification, VerifiedSkill,
};
pub use scaffold::{ScaffoldError, Scaffolded, scaffold_skill, scaffold_skill_in, skill_dir_name};
pub use skillful_lockfile::{
    LOCK_FILE, LOCK_VERSION, LockError, LockFile, LockedSkill, MAX_PREVIOUS_VERSIONS,
};
pub use source::Source;

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

use skillful_core::validate::ValidationMode;
use skillful_core::{DeclaredRisk, Diagnostic, RiskTier};
use skillful_frontmatter::FrontmatterLoader;
use skillful_manifest::{EntryKind, Limits, Manifest, ManifestDiff, ManifestError};

/// Why installing, verifying or removing failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum InstallError {
    /// The source given is not one `skills add` takes.
    #[error("{source_text:?}: not a skill source: {reason}")]
    Source {
        /// The text given.
        source_text: String,
        /// Why.
        reason: String,
    },
    /// A `git` command failed.
    #[error("git {action}: {message}")]
    Git {
        /// What was run.
        action: String,
        /// Its error output.
        message: String,
    },
    /// A file or directory could not be read or written.
    #[error("{}: {source}", path.display())]
    Io {
        /// The path.
        path: PathBuf,
        /// The failure.
        source: std::io::Error,
    },
    /// The lock file could not be read or written.
    #[error("{}: {reason}", path.display())]
    Lock {
        /// The lock file.
        path: PathBuf,
        /// Why.
        reason: String,
    },
    /// Nothing to install: no `SKILL.md`, or none of the names asked for.
    #[error("{source_text}: {reason}")]
    NoSkills {
        /// The source.
        source_text: String,
        /// What was looked for.
        reason: String,
    },
    /// A skill whose `SKILL.md` cannot be loaded at all.
    #[error("{}: not a loadable skill: {}", dir.display(), diagnostics.iter().map(ToString::to_string).collect::<Vec<_>>().join("; "))]
    Invalid {
        /// The skill's directory in the source.
        dir: PathBuf,
        /// What is wrong.
        diagnostics: Vec<Diagnostic>,
    },
    /// A skill whose files cannot be installed safely.
    #[error("skill {skill}: refused: {source}")]
    Unsafe {
        /// The skill.
        skill: String,
        /// What is wrong with its files.
        source: ManifestError,
    },
    /// A skill with a file layout that cannot be installed faithfully.
    #[error("skill {skill}: refused: {reason}")]
    Refused {
        /// The skill.
        skill: String,
        /// Why (case collisions, a submodule).
        reason: String,
    },
    /// A skill of that name is installed already.
    #[error("skill {name} is installed already at {}; remove it first (skills remove {name})", dir.display())]
    AlreadyInstalled {
        /// The skill.
        name: String,
        /// Where.
        dir: PathBuf,
    },
    /// `skills install --frozen` found a locked skill that cannot be installed without
    /// changing the lock.
    #[error("skill {skill}: {reason}; the lock {} is left unchanged (run skills install without --frozen to re-lock it)", lock.display())]
    Frozen {
        /// The skill.
        skill: String,
        /// What differs.
        reason: String,
        /// The lock file.
        lock: PathBuf,
    },
    /// A directory of a skill's name is in the skills directory, and the lock does not list
    /// it: not skillful's to replace.
    #[error("{} exists and was not installed by `skills add` (the lock does not list it); move it away or remove it first", dir.display())]
    NotOurs {
        /// The directory.
        dir: PathBuf,
    },
    /// No skill of that name is in the lock.
    #[error("skill {name} is not in {}", lock.display())]
    NotLocked {
        /// The name asked for.
        name: String,
        /// The lock file.
        lock: PathBuf,
    },
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> InstallError + '_ {
    move |source| InstallError::Io {
        path: path.to_owned(),
        source,
    }
}

/// Which skills of a source to take.
#[derive(Debug, Clone, Default)]
pub struct Selection {
    /// Only the skills of these names (all when empty).
    pub skills: Vec<String>,
    /// Only below this directory of the source.
    pub path: Option<String>,
}

/// A skill found in a fetched source, checked and ready to install.
#[derive(Debug)]
pub struct Candidate {
    /// Its name: the frontmatter's, made a valid one when it is not ([`skill_dir_name`]: `Zoho
    /// Books` is `zoho-books`, with a warning in `diagnostics`); its directory's name once
    /// installed, and its key in the lock.
    pub name: String,
    /// The name its frontmatter gives.
    pub declared_name: String,
    /// Its frontmatter's description.
    pub description: String,
    /// Its directory inside the source (`.` for the source's root).
    pub path: String,
    /// Every file.
    pub manifest: Manifest,
    /// vercel-labs/skills' `computedHash` of it.
    pub computed_hash: String,
    /// What strict validation says (installing goes on; these are shown).
    pub diagnostics: Vec<Diagnostic>,
    /// Its scripts with their declared tiers.
    pub scripts: Vec<(String, RiskTier)>,
    /// The scan's findings.
    pub report: skillful_scan::Report,
    dir: PathBuf,
}

impl Candidate {
    /// Where its files are now: in the fetched tree (or the local source), until the
    /// [`Prepared`] holding it is dropped.
    pub fn dir(&self) -> &Path {
        &self.dir
    }
}

/// A fetched source and its skills; dropping it removes the staging directory.
#[derive(Debug)]
pub struct Prepared {
    /// The skills found.
    pub candidates: Vec<Candidate>,
    /// The source.
    pub source: Source,
    /// The commit fetched (git sources).
    pub commit: Option<String>,
    _staging: Option<Staging>,
}

/// A hidden directory removed when dropped.
#[derive(Debug)]
struct Staging(PathBuf);

impl Drop for Staging {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}

/// How an installed skill compares with its lock entry; in JSON, `state` and, when modified or
/// unreadable, `detail` (the differences, or why).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(tag = "state", content = "detail", rename_all = "kebab-case")]
pub enum Verified {
    /// Every file as locked.
    Intact,
    /// Files differ.
    Modified(ManifestDiff),
    /// The skill's directory is gone.
    Missing,
    /// The directory cannot be read safely any more.
    Unreadable(String),
}

/// A locked skill whose files differ at the commit its ref points at now.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Outdated {
    /// The skill.
    pub name: String,
    /// The commit installed.
    pub locked: String,
    /// The commit the ref points at now.
    pub latest: String,
    /// How its files at `latest` differ from the locked ones.
    pub changes: ManifestDiff,
}

/// What [`Installer::apply_locked`] does for one locked skill; in JSON, `action` and, for a
/// re-lock, `changes`.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(tag = "action", content = "changes", rename_all = "kebab-case")]
pub enum LockedAction {
    /// Its files are as locked: nothing.
    Keep,
    /// The recorded commit (or directory) has the locked files: they are installed again, the
    /// lock is unchanged.
    Restore,
    /// The recorded source no longer gives the locked files (they differ from the lock as the
    /// diff says, or another commit was fetched): installing it changes the lock.
    Relock(ManifestDiff),
}

/// One locked skill as `skills install` found it ([`Installer::plan_locked`]).
#[derive(Debug)]
pub struct LockedPlan {
    /// The skill.
    pub name: String,
    /// How its installed files compared with the lock.
    pub found: Verified,
    /// What installing does.
    pub action: LockedAction,
    prepared: Option<Prepared>,
}

impl LockedPlan {
    /// What was fetched for it (none when it is kept as it is).
    pub fn prepared(&self) -> Option<&Prepared> {
        self.prepared.as_ref()
    }
}

const STAGING_PREFIX: &str = ".skills-staging-";
/// The largest tree (its files' bytes together) a fetch checks out in memory.
const MAX_MEMORY_STAGING_BYTES: u64 = 128 << 20;

/// A new private directory (mode 0700, named after this process and at random) in memory,
/// in the first of [`memory_bases`] where one can be made.
fn memory_staging() -> Option<Staging> {
    memory_bases()
        .find_map(|base| {
            tempfile::Builder::new()
                .prefix(&format!("{STAGING_PREFIX}{}-", std::process::id()))
                .tempdir_in(base)
                .ok()
        })
        .map(|dir| Staging(dir.keep()))
}

/// Where a fetched tree can be checked out in memory: `$XDG_RUNTIME_DIR` (the user's own, a
/// `tmpfs` on systemd's systems), then Linux's `/dev/shm`, those that are directories.
fn memory_bases() -> impl Iterator<Item = PathBuf> {
    let runtime = std::env::var_os("XDG_RUNTIME_DIR")
        .map(PathBuf::from)
        .filter(|dir| dir.is_absolute());
    let shared_memory = cfg!(target_os = "linux").then(|| PathBuf::from("/dev/shm"));
    runtime
        .into_iter()
        .chain(shared_memory)
        .filter(|base| base.is_dir())
}

/// The trees in memory that runs of this program no longer running left (killed before they
/// removed them): a tree's name carries its process's id.
#[cfg(unix)]
fn remove_memory_leftovers() {
    for base in memory_bases() {
        let Ok(entries) = fs::read_dir(&base) else {
            continue;
        };
        for entry in entries.flatten() {
            let name = entry.file_name();
            let pid = name
                .to_str()
                .and_then(|name| name.strip_prefix(STAGING_PREFIX))
                .and_then(|rest| rest.split_once('-'))
                .and_then(|(pid, _)| pid.parse::<u32>().ok());
            // Only this user's own directories (root could remove anyone's).
            let mine = entry.metadata().is_ok_and(|metadata| {
                metadata.is_dir() && skillful_state::Ownership::of(&metadata).is_mine()
            });
            if mine
                && let Some(pid) = pid
                && pid != std::process::id()
                && !skillful_process::process_exists(pid)
            {
                let _ = fs::remove_dir_all(entry.path());
            }
        }
    }
}

/// Fewer skills than this per thread are checked on the calling thread alone.
const MIN_SKILLS_PER_THREAD: usize = 8;
const INSTALLING_PREFIX: &str = ".skills-installing-";

/// One scope's installed skills and their lock.
#[derive(Debug, Clone)]
pub struct Installer {
    skills_dir: PathBuf,
    lock_path: PathBuf,
    limits: Limits,
}

impl Installer {
    /// The installer of the skills directory `skills_dir`, with its lock beside it.
    pub fn new(skills_dir: impl Into<PathBuf>) -> Self {
        let skills_dir = skills_dir.into();
        let lock_path = LockFile::path_for(&skills_dir);
        Self {
            skills_dir,
            lock_path,
            limits: Limits::default(),
        }
    }

    /// The same installer with other limits on a skill's files.
    pub fn with_limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self
    }

    /// The lock file's path.
    pub fn lock_path(&self) -> &Path {
        &self.lock_path
    }

    /// The skills directory.
    pub fn skills_dir(&self) -> &Path {
        &self.skills_dir
    }

    /// The lock as it is on disk.
    ///
    /// # Errors
    /// [`InstallError::Lock`].
    pub fn lock(&self) -> Result<LockFile, InstallError> {
        Ok(LockFile::read(&self.lock_path)?)
    }

    fn scope_lock(&self) -> Result<skillful_fs::FileLock, InstallError> {
        fs::create_dir_all(&self.skills_dir).map_err(io(&self.skills_dir))?;
        let path = self.skills_dir.join(".skills-lock.lock");
        skillful_fs::FileLock::acquire(&path).map_err(|error| InstallError::Lock {
            path,
            reason: error.to_string(),
        })
    }

    fn hidden_dir(&self, prefix: &str) -> PathBuf {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        self.skills_dir.join(format!(
            "{prefix}{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        ))
    }

    /// Fetches `source` and checks every skill in it that `selection` takes.
    ///
    /// # Errors
    /// [`InstallError`]: the fetch failed, no skill matched, or a skill is invalid or unsafe.
    pub fn prepare(&self, source: Source, selection: &Selection) -> Result<Prepared, InstallError> {
        fs::create_dir_all(&self.skills_dir).map_err(io(&self.skills_dir))?;
        let (staging, root, commit, submodules) = match &source {
            Source::Git { url, reference } => {
                let (staging, commit, submodules) = self.fetch_tree(url, reference.as_deref())?;
                let root = staging.0.clone();
                (Some(staging), root, Some(commit), submodules)
            }
            Source::Local(dir) => (None, dir.clone(), None, Vec::new()),
        };
        let base = match &selection.path {
            Some(path) => {
                skillful_core::names::RelativeName::new(path).map_err(|refused| {
                    InstallError::NoSkills {
                        source_text: source.location(),
                        reason: format!("--path {path:?}: {}", refused.reason),
                    }
                })?;
                root.join(path)
            }
            None => root.clone(),
        };
        let dirs = skillful_discovery::skill_dirs(&base).dirs;
        let mut candidates = Vec::new();
        let mut offered = Vec::new();
        let mut unmatched: Vec<&String> = selection.skills.iter().filter(|w| *w != "*").collect();
        for candidate in self.candidates(&root, &dirs, &submodules) {
            let candidate = candidate?;
            let names = candidate.names();
            let wanted = selection.skills.is_empty()
                || selection
                    .skills
                    .iter()
                    .any(|wanted| wanted == "*" || names.contains(&wanted.as_str()));
            unmatched.retain(|wanted| !names.contains(&wanted.as_str()));
            offered.push(candidate.name.clone());
            if wanted {
                candidates.push(candidate);
            }
        }
        // A name that matched nothing is a mistake, even when others matched.
        if !unmatched.is_empty() {
            let missing: Vec<String> = unmatched
                .iter()
                .map(|wanted| {
                    match skillful_discovery::closest_name(
                        wanted,
                        offered.iter().map(String::as_str),
                    ) {
                        Some(close) => format!("{wanted} (did you mean {close}?)"),
                        None => (*wanted).clone(),
                    }
                })
                .collect();
            return Err(InstallError::NoSkills {
                source_text: source.location(),
                reason: format!(
                    "no skill named {}; it has {}",
                    missing.join(", "),
                    offered_list(&offered)
                ),
            });
        }
        if candidates.is_empty() {
            let reason = if selection.skills.is_empty() {
                format!(
                    "no SKILL.md found in it or in the {} levels below (as discovery looks)",
                    skillful_discovery::MAX_SKILL_DEPTH
                )
            } else {
                format!("no skill named {}", selection.skills.join(", "))
            };
            return Err(InstallError::NoSkills {
                source_text: source.location(),
                reason,
            });
        }
        Ok(Prepared {
            candidates,
            source,
            commit,
            _staging: staging,
        })
    }

    /// Fetches `reference` (or `HEAD`) of the repository `url` into a new staging directory
    /// and checks its tree out, without the fetch's own `.git`; returns the tree's directory,
    /// the commit and the paths of its submodules.
    ///
    /// The tree is written to a directory in memory ([`memory_staging`]) when it holds at most
    /// [`MAX_MEMORY_STAGING_BYTES`]: it is only read (checked, scanned, copied from) and removed,
    /// and a disk spends most of `add --list`'s time creating and removing its files (900
    /// skills: 1.0–1.2 s in memory, 1.6–6.7 s on this machine's disk). A larger tree, or one
    /// on a system without such a directory, is written beside the skills directory.
    fn fetch_tree(
        &self,
        url: &str,
        reference: Option<&str>,
    ) -> Result<(Staging, String, Vec<String>), InstallError> {
        let repository = Staging(self.hidden_dir(STAGING_PREFIX));
        let commit = git::fetch(url, reference, &repository.0)?;
        let size = git::tree_size(&repository.0, &commit)?;
        let tree = match (size.bytes <= MAX_MEMORY_STAGING_BYTES)
            .then(memory_staging)
            .flatten()
        {
            Some(tree) => tree,
            None => {
                let tree = Staging(self.hidden_dir(STAGING_PREFIX));
                fs::create_dir(&tree.0).map_err(io(&tree.0))?;
                tree
            }
        };
        git::checkout(&repository.0, &tree.0, &commit)?;
        let submodules = git::submodules(&repository.0)?;
        // The fetch's own repository (dropped here) is not the skill's: a skill at the
        // repository's root would carry it, and no later fetch could restore it as locked.
        Ok((tree, commit, submodules))
    }

    /// The candidate of each of `dirs`, in their order: each one's manifest, digest and scan
    /// read its files, so the directories are shared out among up to one thread per core
    /// (a 900-skill repository: the skills' reading and scanning is about half of `add --list`).
    fn candidates(
        &self,
        root: &Path,
        dirs: &[PathBuf],
        submodules: &[String],
    ) -> Vec<Result<Candidate, InstallError>> {
        let threads = std::thread::available_parallelism()
            .map_or(1, std::num::NonZeroUsize::get)
            .min(dirs.len().div_ceil(MIN_SKILLS_PER_THREAD));
        if threads <= 1 {
            return dirs
                .iter()
                .map(|dir| self.candidate(root, dir, submodules))
                .collect();
        }
        let next = AtomicUsize::new(0);
        let mut done: Vec<(usize, Result<Candidate, InstallError>)> = std::thread::scope(|scope| {
            let workers: Vec<_> = (0..threads)
                .map(|_| {
                    scope.spawn(|| {
                        let mut done = Vec::new();
                        loop {
                            let index = next.fetch_add(1, Ordering::Relaxed);
                            let Some(dir) = dirs.get(index) else {
                                return done;
                            };
                            done.push((index, self.candidate(root, dir, submodules)));
                        }
                    })
                })
                .collect();
            workers
                .into_iter()
                .flat_map(|worker| match worker.join() {
                    Ok(done) => done,
                    Err(panic) => std::panic::resume_unwind(panic),
                })
                .collect()
        });
        done.sort_unstable_by_key(|(index, _)| *index);
        done.into_iter().map(|(_, candidate)| candidate).collect()
    }

    fn candidate(
        &self,
        root: &Path,
        dir: &Path,
        submodules: &[String],
    ) -> Result<Candidate, InstallError> {
        let (frontmatter, mut diagnostics) = self.frontmatter(dir)?;
        let declared_name = frontmatter.name.clone();
        let name = skill_dir_name(&declared_name);
        if name != declared_name {
            diagnostics.push(Diagnostic::warning(
                "name",
                format!(
                    "`{declared_name}` is not a valid skill name (lowercase letters, digits and \
                     single hyphens): installed as `{name}`"
                ),
            ));
        }
        check_directory_name(&name)?;
        let relative = dir
            .strip_prefix(root)
            .ok()
            .map(|path| path.to_string_lossy().replace('\\', "/"))
            .filter(|path| !path.is_empty())
            .unwrap_or_else(|| ".".to_owned());
        if let Some(module) = submodules
            .iter()
            .find(|module| relative == "." || module.starts_with(&format!("{relative}/")))
        {
            return Err(InstallError::Refused {
                skill: name,
                reason: format!(
                    "it holds the git submodule {module:?}, which is not fetched; vendor its files instead"
                ),
            });
        }
        let manifest =
            Manifest::of_dir(dir, &self.limits).map_err(|source| InstallError::Unsafe {
                skill: name.clone(),
                source,
            })?;
        if let Some(group) = manifest.case_collisions().first() {
            return Err(InstallError::Refused {
                skill: name,
                reason: format!(
                    "its files {} differ only in case and would overwrite one another on macOS and Windows",
                    group.join(", ")
                ),
            });
        }
        let computed_hash =
            skillful_manifest::computed_hash(dir, &self.limits).map_err(|source| {
                InstallError::Unsafe {
                    skill: name.clone(),
                    source,
                }
            })?;
        let (risk, _) = DeclaredRisk::from_metadata(&frontmatter.metadata);
        let scripts = manifest
            .files()
            .iter()
            .filter(|entry| entry.path.starts_with("scripts/") && entry.kind == EntryKind::File)
            .map(|entry| (entry.path.clone(), risk.script(&entry.path)))
            .collect();
        let report = skillful_scan::scan_skill(dir, &name);
        Ok(Candidate {
            name,
            declared_name,
            description: frontmatter.description.clone(),
            path: relative,
            manifest,
            computed_hash,
            diagnostics,
            scripts,
            report,
            dir: dir.to_owned(),
        })
    }

    /// The frontmatter of `dir`'s `SKILL.md` read leniently (what is installed), and what strict
    /// validation says of it (shown to the user, not a refusal).
    fn frontmatter(
        &self,
        dir: &Path,
    ) -> Result<(skillful_core::SkillFrontmatter, Vec<Diagnostic>), InstallError> {
        let skill_md = dir.join("SKILL.md");
        let bytes = skillful_manifest::read_bounded(&skill_md, self.limits.max_file_bytes)
            .map_err(|source| InstallError::Unsafe {
                skill: dir.display().to_string(),
                source,
            })?;
        let text = String::from_utf8_lossy(&bytes);
        let dir_name = dir.file_name().and_then(|name| name.to_str());
        let diagnostics = match FrontmatterLoader::new(ValidationMode::Strict).load(&text, dir_name)
        {
            Ok(validated) => validated.diagnostics,
            Err(diagnostics) => diagnostics,
        };
        let frontmatter = FrontmatterLoader::new(ValidationMode::Lenient)
            .load(&text, None)
            .map_err(|diagnostics| InstallError::Invalid {
                dir: dir.to_owned(),
                diagnostics,
            })?
            .frontmatter;
        Ok((frontmatter, diagnostics))
    }

    /// Installs every candidate of `prepared` and records it in the lock; `replace` lets a
    /// skill of the same name already installed be replaced (an update). Returns the names.
    ///
    /// # Errors
    /// [`InstallError`]: a skill is installed already (without `replace`), a copy failed or
    /// did not match its manifest, or the lock cannot be written. Skills installed before the
    /// failure stay installed and locked.
    pub fn install(&self, prepared: &Prepared, replace: bool) -> Result<Vec<String>, InstallError> {
        let _guard = self.scope_lock()?;
        self.remove_leftovers();
        let mut lock = self.lock()?;
        let mut installed = Vec::new();
        let result = prepared.candidates.iter().try_for_each(|candidate| {
            self.place(candidate, replace)?;
            let entry = succeeding(&mut lock, &candidate.name, locked(prepared, candidate));
            lock.skills.insert(candidate.name.clone(), entry);
            installed.push(candidate.name.clone());
            Ok(())
        });
        // One write for the whole command (a lock rewritten per skill made adding 1,000 skills
        // quadratic), also after a failure, so that what was installed is locked.
        if !installed.is_empty() {
            lock.write(&self.lock_path)?;
        }
        result.map(|()| installed)
    }

    /// Copies `candidate` into a hidden directory, checks it and renames it into place
    /// (replacing an installed skill of its name only when `replace`).
    fn place(&self, candidate: &Candidate, replace: bool) -> Result<(), InstallError> {
        let target = self.skills_dir.join(&candidate.name);
        let exists = fs::symlink_metadata(&target).is_ok();
        if exists && !replace {
            return Err(InstallError::AlreadyInstalled {
                name: candidate.name.clone(),
                dir: target,
            });
        }
        let copy = Staging(self.hidden_dir(INSTALLING_PREFIX));
        copy_skill(candidate, &copy.0, &self.limits)?;
        if exists {
            let old = Staging(self.hidden_dir(INSTALLING_PREFIX));
            fs::rename(&target, &old.0).map_err(io(&target))?;
        }
        fs::rename(&copy.0, &target).map_err(io(&target))
    }

    /// Hidden directories an interrupted install left behind (under the scope's lock, so no
    /// other install is using them).
    fn remove_leftovers(&self) {
        #[cfg(unix)]
        remove_memory_leftovers();
        let Ok(entries) = fs::read_dir(&self.skills_dir) else {
            return;
        };
        for entry in entries.flatten() {
            let name = entry.file_name();
            let name = name.to_string_lossy();
            let ours = name.starts_with(INSTALLING_PREFIX)
                || (name.starts_with(STAGING_PREFIX)
                    && !name.starts_with(&format!("{STAGING_PREFIX}{}-", std::process::id())));
            if ours && entry.file_type().is_ok_and(|kind| kind.is_dir()) {
                let _ = fs::remove_dir_all(entry.path());
            }
        }
    }

    /// The skills of `prepared` that are installed already, each with how the fetched files
    /// differ from the locked ones: installing `prepared` replaces them (as `skills update`
    /// does), after saying so.
    ///
    /// # Errors
    /// [`InstallError::NotOurs`] for a directory of a candidate's name that the lock does not
    /// list (a user's own skill is never replaced), or [`InstallError::Lock`].
    pub fn replacements(&self, prepared: &Prepared) -> Result<Vec<Replacement>, InstallError> {
        let lock = self.lock()?;
        let mut replacements = Vec::new();
        for candidate in &prepared.candidates {
            let target = self.skills_dir.join(&candidate.name);
            if fs::symlink_metadata(&target).is_err() {
                continue;
            }
            let Some(entry) = lock.skills.get(&candidate.name) else {
                return Err(InstallError::NotOurs { dir: target });
            };
            replacements.push(Replacement {
                name: candidate.name.clone(),
                changes: candidate.manifest.diff(&entry.files),
            });
        }
        Ok(replacements)
    }

    /// Compares the installed files of `names` (every locked skill when empty) with the lock.
    ///
    /// # Errors
    /// [`InstallError::Lock`], or [`InstallError::NotLocked`] for a name the lock lacks.
    pub fn verify(&self, names: &[String]) -> Result<Vec<(String, Verified)>, InstallError> {
        let lock = self.lock()?;
        let mut wanted: Vec<(&String, &LockedSkill)> = Vec::new();
        for name in names {
            let entry = lock
                .skills
                .get_key_value(name)
                .ok_or_else(|| InstallError::NotLocked {
                    name: name.clone(),
                    lock: self.lock_path.clone(),
                })?;
            wanted.push(entry);
        }
        if names.is_empty() {
            wanted = lock.skills.iter().collect();
        }
        let threads = std::thread::available_parallelism()
            .map_or(1, |n| n.get())
            .min(8);
        let chunk = wanted.len().div_ceil(threads).max(1);
        let results = std::thread::scope(|scope| {
            let handles: Vec<_> = wanted
                .chunks(chunk)
                .map(|part| {
                    scope.spawn(move || {
                        part.iter()
                            .map(|(name, entry)| ((*name).clone(), self.verify_one(name, entry)))
                            .collect::<Vec<_>>()
                    })
                })
                .collect();
            handles
                .into_iter()
                .flat_map(|handle| handle.join().expect("a verify thread does not panic"))
                .collect()
        });
        Ok(results)
    }

    fn verify_one(&self, name: &str, entry: &LockedSkill) -> Verified {
        let dir = self.skills_dir.join(name);
        if fs::symlink_metadata(&dir).is_err() {
            return Verified::Missing;
        }
        match Manifest::of_dir(&dir, &self.limits) {
            Ok(now) => {
                let diff = now.diff(&entry.files);
                if diff.is_empty() {
                    Verified::Intact
                } else {
                    Verified::Modified(diff)
                }
            }
            Err(error) => Verified::Unreadable(error.to_string()),
        }
    }

    /// What `skills install` has to do to make the installed skills match the lock: every
    /// locked skill is verified, and each one whose files differ (or are gone) is fetched again
    /// from its recorded source at its recorded commit and checked against the lock's manifest.
    ///
    /// # Errors
    /// [`InstallError`]: the lock cannot be read, or a fetch failed.
    pub fn plan_locked(&self) -> Result<Vec<LockedPlan>, InstallError> {
        let lock = self.lock()?;
        let mut plans = Vec::new();
        for (name, found) in self.verify(&[])? {
            let entry = &lock.skills[&name];
            if found == Verified::Intact {
                plans.push(LockedPlan {
                    name,
                    found,
                    action: LockedAction::Keep,
                    prepared: None,
                });
                continue;
            }
            let source = self.locked_source(&name, entry, true)?;
            let selection = Selection {
                skills: vec![name.clone()],
                path: (entry.path != ".").then(|| entry.path.clone()),
            };
            let prepared = self.prepare(source, &selection)?;
            let candidate = &prepared.candidates[0];
            let action =
                if candidate.manifest.digest() == entry.digest && prepared.commit == entry.commit {
                    LockedAction::Restore
                } else {
                    LockedAction::Relock(candidate.manifest.diff(&entry.files))
                };
            plans.push(LockedPlan {
                name,
                found,
                action,
                prepared: Some(prepared),
            });
        }
        Ok(plans)
    }

    /// Carries `plans` out: restores what [`LockedAction::Restore`] names and installs and
    /// re-locks what [`LockedAction::Relock`] names. With `frozen`, a plan that would change the
    /// lock fails the whole command before anything is changed.
    ///
    /// # Errors
    /// [`InstallError::Frozen`] naming the skill and what differs, or as
    /// [`Installer::install`].
    pub fn apply_locked(&self, plans: &[LockedPlan], frozen: bool) -> Result<(), InstallError> {
        if frozen
            && let Some(plan) = plans
                .iter()
                .find(|plan| matches!(plan.action, LockedAction::Relock(_)))
        {
            return Err(InstallError::Frozen {
                skill: plan.name.clone(),
                reason: relock_reason(plan),
                lock: self.lock_path.clone(),
            });
        }
        let _guard = self.scope_lock()?;
        self.remove_leftovers();
        let mut lock = self.lock()?;
        let mut relocked = false;
        let result = plans.iter().try_for_each(|plan| {
            let Some(prepared) = &plan.prepared else {
                return Ok(());
            };
            let candidate = &prepared.candidates[0];
            self.place(candidate, true)?;
            if let LockedAction::Relock(_) = plan.action {
                let entry = succeeding(&mut lock, &candidate.name, locked(prepared, candidate));
                lock.skills.insert(candidate.name.clone(), entry);
                relocked = true;
            }
            Ok(())
        });
        if relocked {
            lock.write(&self.lock_path)?;
        }
        result
    }

    /// Removes the installed skill `name` and its lock entry.
    ///
    /// # Errors
    /// [`InstallError::NotLocked`], or the directory or lock cannot be changed.
    pub fn remove(&self, name: &str) -> Result<(), InstallError> {
        let _guard = self.scope_lock()?;
        let mut lock = self.lock()?;
        if lock.skills.remove(name).is_none() || name.contains('/') || name.starts_with('.') {
            return Err(InstallError::NotLocked {
                name: name.to_owned(),
                lock: self.lock_path.clone(),
            });
        }
        let dir = self.skills_dir.join(name);
        if fs::symlink_metadata(&dir).is_ok() {
            // Renamed away first, so that no host sees half a skill while it is deleted.
            let trash = self.hidden_dir(INSTALLING_PREFIX);
            fs::rename(&dir, &trash).map_err(io(&dir))?;
            fs::remove_dir_all(&trash).map_err(io(&trash))?;
        }
        Ok(lock.write(&self.lock_path)?)
    }

    /// Puts back an earlier version of the installed skill `name` from its lock entry's
    /// history: the newest (`to` `None`), or the newest whose commit begins with `to` (four
    /// characters or more) or whose ref is `to`. The version is fetched as `add` fetches and
    /// installed only when its files are exactly the ones locked then (as `install --frozen`
    /// checks); the version it replaces becomes the newest of the history, so a second rollback
    /// returns to it.
    ///
    /// # Errors
    /// [`InstallError::NotLocked`]; [`InstallError::NoSkills`] when the entry has no earlier
    /// version (or none `to` names); [`InstallError::Frozen`] when the installed copy was
    /// changed (`verify` says modified: nothing is replaced) or the fetched files are not the
    /// ones locked; as [`Installer::prepare`] and [`Installer::install`].
    pub fn rollback(&self, name: &str, to: Option<&str>) -> Result<RolledBack, InstallError> {
        let lock = self.lock()?;
        let Some(current) = lock.skills.get(name) else {
            return Err(InstallError::NotLocked {
                name: name.to_owned(),
                lock: self.lock_path.clone(),
            });
        };
        let versions = || {
            current
                .previous
                .iter()
                .map(version_label)
                .collect::<Vec<_>>()
                .join(", ")
        };
        let wanted = current.previous.iter().position(|old| match to {
            None => true,
            Some(to) => {
                old.reference.as_deref() == Some(to)
                    || (to.len() >= 4 && old.commit.as_deref().is_some_and(|c| c.starts_with(to)))
            }
        });
        let Some(at) = wanted else {
            return Err(InstallError::NoSkills {
                source_text: self.lock_path.display().to_string(),
                reason: match (to, current.previous.is_empty()) {
                    (_, true) => format!(
                        "skill {name} has no earlier version in the lock (each update keeps the one it replaces)"
                    ),
                    (Some(to), false) => format!(
                        "no earlier version of skill {name} is {to}; the lock keeps {}",
                        versions()
                    ),
                    (None, false) => unreachable!("the newest earlier version is always wanted"),
                },
            });
        };
        let frozen = |reason: String| InstallError::Frozen {
            skill: name.to_owned(),
            reason,
            lock: self.lock_path.clone(),
        };
        if let Some((_, Verified::Modified(changes))) = self
            .verify(&[name.to_owned()])?
            .into_iter()
            .find(|(found, _)| found == name)
        {
            return Err(frozen(format!(
                "its installed files were changed ({}); nothing was rolled back",
                changed_paths(&changes).join("; ")
            )));
        }
        let target = &current.previous[at];
        let source = self.locked_source(name, target, true)?;
        let selection = Selection {
            skills: vec![name.to_owned()],
            path: (target.path != ".").then(|| target.path.clone()),
        };
        let prepared = self.prepare(source, &selection)?;
        let candidate = &prepared.candidates[0];
        if candidate.manifest.digest() != target.digest || prepared.commit != target.commit {
            return Err(frozen(format!(
                "the files fetched for {} are not the ones locked then (the source changed); nothing was rolled back",
                version_label(target)
            )));
        }
        let _guard = self.scope_lock()?;
        self.remove_leftovers();
        let mut lock = self.lock()?;
        let Some(mut replaced) = lock.skills.remove(name) else {
            return Err(InstallError::NotLocked {
                name: name.to_owned(),
                lock: self.lock_path.clone(),
            });
        };
        self.place(candidate, true)?;
        let mut history = std::mem::take(&mut replaced.previous);
        let mut restored = history.remove(at);
        restored.installed_at = lock::now_rfc3339();
        history.insert(0, replaced.clone());
        history.truncate(MAX_PREVIOUS_VERSIONS);
        restored.previous = history;
        let report = RolledBack {
            name: name.to_owned(),
            from: version_label(&replaced),
            to: version_label(&restored),
        };
        lock.skills.insert(name.to_owned(), restored);
        lock.write(&self.lock_path)?;
        Ok(report)
    }

    /// The locked git skills whose files differ at the commit their ref points at now: each
    /// source whose ref has moved on is fetched (once for all its skills) and each skill's
    /// manifest there compared with the lock's, so that a skill whose files are the same at the
    /// newer commit (another skill of the repository changed) is not outdated. A skill gone
    /// from the newer commit is outdated with every file removed.
    ///
    /// # Errors
    /// [`InstallError::Lock`], [`InstallError::Git`], or [`InstallError::Unsafe`] when a
    /// skill's files at the newer commit cannot be read safely.
    pub fn outdated(&self) -> Result<Vec<Outdated>, InstallError> {
        let lock = self.lock()?;
        let mut outdated = Vec::new();
        let mut fetched: Vec<((String, Option<String>), Staging, String)> = Vec::new();
        for (name, entry) in &lock.skills {
            let Some(locked) = &entry.commit else {
                continue;
            };
            let Source::Git { url, reference } = self.locked_source(name, entry, false)? else {
                continue;
            };
            match git::remote_commit(&url, reference.as_deref())? {
                Some(latest) if &latest != locked => {}
                _ => continue,
            }
            let key = (url, reference);
            let at = match fetched.iter().position(|(source, ..)| *source == key) {
                Some(at) => at,
                None => {
                    let (staging, commit, _) = self.fetch_tree(&key.0, key.1.as_deref())?;
                    fetched.push((key, staging, commit));
                    fetched.len() - 1
                }
            };
            let (_, staging, latest) = &fetched[at];
            if latest == locked {
                continue;
            }
            let now = self.manifest_at(name, &staging.0, &entry.path)?;
            if now.digest() != entry.digest {
                outdated.push(Outdated {
                    name: name.clone(),
                    locked: locked.clone(),
                    latest: latest.clone(),
                    changes: now.diff(&entry.files),
                });
            }
        }
        Ok(outdated)
    }

    /// The manifest of the skill `name` at `path` of the checkout `root` (empty when no
    /// `SKILL.md` is there any more).
    fn manifest_at(&self, name: &str, root: &Path, path: &str) -> Result<Manifest, InstallError> {
        let dir = if path == "." {
            root.to_owned()
        } else {
            let relative = skillful_core::names::RelativeName::new(path).map_err(|refused| {
                InstallError::Lock {
                    path: self.lock_path.clone(),
                    reason: format!("skill {name}: path {path:?}: {}", refused.reason),
                }
            })?;
            root.join(relative.as_str())
        };
        if !dir.join("SKILL.md").is_file() {
            return Ok(Manifest::default());
        }
        Manifest::of_dir(&dir, &self.limits).map_err(|source| InstallError::Unsafe {
            skill: name.to_owned(),
            source,
        })
    }

    /// The installed skill `name` as it is at `reference` (a tag, branch or commit) of the git
    /// source its lock entry names, fetched and checked as `add` fetches and checks (nothing is
    /// installed): to evaluate it against the installed version.
    ///
    /// # Errors
    /// [`InstallError::NotLocked`]; [`InstallError::NoSkills`] for a skill from a local
    /// directory (it has no other version) or one `reference` does not hold; as
    /// [`Installer::prepare`].
    pub fn fetch_version(&self, name: &str, reference: &str) -> Result<Prepared, InstallError> {
        let lock = self.lock()?;
        let Some(entry) = lock.skills.get(name) else {
            return Err(InstallError::NotLocked {
                name: name.to_owned(),
                lock: self.lock_path.clone(),
            });
        };
        let Source::Git { url, .. } = self.locked_source(name, entry, false)? else {
            return Err(InstallError::NoSkills {
                source_text: entry.source.clone(),
                reason: format!(
                    "skill {name} was installed from a local directory: it has no other version to fetch"
                ),
            });
        };
        let selection = Selection {
            skills: vec![name.to_owned()],
            path: (entry.path != ".").then(|| entry.path.clone()),
        };
        self.prepare(
            Source::Git {
                url,
                reference: Some(reference.to_owned()),
            },
            &selection,
        )
    }

    /// The source the lock entry `entry` of skill `name` names, read as `skills add` reads one
    /// (a lock may come from elsewhere, a project's in version control: its source is never
    /// handed to git as it stands; `fd::3` or `-uhelper` is refused), at its commit when
    /// `pinned`, else at its reference. Every command that fetches what a lock names reads it
    /// here.
    ///
    /// # Errors
    /// [`InstallError::Lock`] naming the skill when its source is not one `skills add` takes.
    pub fn locked_source(
        &self,
        name: &str,
        entry: &LockedSkill,
        pinned: bool,
    ) -> Result<Source, InstallError> {
        match (entry.source_type.as_str(), Source::parse(&entry.source)) {
            ("git", Ok(Source::Git { url, .. })) => Ok(Source::Git {
                url,
                reference: if pinned {
                    entry.commit.clone().or_else(|| entry.reference.clone())
                } else {
                    entry.reference.clone()
                },
            }),
            ("local", _) => Ok(Source::Local(PathBuf::from(&entry.source))),
            (kind, parsed) => Err(InstallError::Lock {
                path: self.lock_path.clone(),
                reason: format!(
                    "skill {name}: the {kind} source {:?} is not one skills add takes{}",
                    entry.source,
                    parsed
                        .err()
                        .map_or_else(String::new, |error| format!(" ({error})"))
                ),
            }),
        }
    }
}

/// `added a, b`, `removed c`, `changed d`: the parts of `diff` that are not empty.
fn changed_paths(diff: &ManifestDiff) -> Vec<String> {
    [
        ("added", &diff.added),
        ("removed", &diff.removed),
        ("changed", &diff.changed),
    ]
    .into_iter()
    .filter(|(_, paths)| !paths.is_empty())
    .map(|(what, paths)| format!("{what} {}", paths.join(", ")))
    .collect()
}

/// What a [`LockedAction::Relock`] plan would change in the lock, in one line.
fn relock_reason(plan: &LockedPlan) -> String {
    let LockedAction::Relock(diff) = &plan.action else {
        return String::new();
    };
    let commit = plan
        .prepared
        .as_ref()
        .and_then(|prepared| prepared.commit.as_deref());
    let parts = changed_paths(diff);
    let at = commit.map_or_else(
        || "its source".to_owned(),
        |commit| format!("commit {commit}"),
    );
    if parts.is_empty() {
        format!("{at} is not the commit the lock records")
    } else {
        format!(
            "the files at {at} differ from the lock: {}",
            parts.join("; ")
        )
    }
}

/// The lock entry of `candidate`, installed from `prepared` now.
fn locked(prepared: &Prepared, candidate: &Candidate) -> LockedSkill {
    let (reference, source_type) = match &prepared.source {
        Source::Git { reference, .. } => (reference.clone(), "git"),
        Source::Local(_) => (None, "local"),
    };
    LockedSkill {
        source: prepared.source.location(),
        source_type: source_type.to_owned(),
        reference,
        commit: prepared.commit.clone(),
        path: candidate.path.clone(),
        installed_at: lock::now_rfc3339(),
        computed_hash: candidate.computed_hash.clone(),
        digest: candidate.manifest.digest(),
        files: candidate.manifest.clone(),
        previous: Vec::new(),
    }
}

/// A locked version as a person names it: its commit's first 12 characters (and its ref), or
/// its digest's for a local source.
fn version_label(entry: &LockedSkill) -> String {
    let short = |text: &str| text.chars().take(12).collect::<String>();
    match (&entry.commit, &entry.reference) {
        (Some(commit), Some(reference)) => format!("{} ({reference})", short(commit)),
        (Some(commit), None) => short(commit),
        (None, _) => format!(
            "digest {}",
            short(entry.digest.trim_start_matches("sha256:"))
        ),
    }
}

/// The lock entry of `name` after installing `entry` in place of what `lock` holds: the old
/// entry, with its history, becomes the new one's history.
fn succeeding(lock: &mut LockFile, name: &str, entry: LockedSkill) -> LockedSkill {
    match lock.skills.remove(name) {
        Some(old) => old.succeeded_by(entry),
        None => entry,
    }
}

/// Copies the candidate's files (as its manifest lists them) into the new directory `to`, then
/// checks that the copy has the same manifest.
fn copy_skill(candidate: &Candidate, to: &Path, limits: &Limits) -> Result<(), InstallError> {
    fs::create_dir_all(to).map_err(io(to))?;
    for entry in candidate.manifest.files() {
        let from = candidate.dir.join(&entry.path);
        let dest = to.join(&entry.path);
        if let Some(parent) = dest.parent() {
            fs::create_dir_all(parent).map_err(io(parent))?;
        }
        match entry.kind {
            EntryKind::File => {
                let bytes = skillful_manifest::read_bounded(&from, limits.max_file_bytes).map_err(
                    |source| InstallError::Unsafe {
                        skill: candidate.name.clone(),
                        source,
                    },
                )?;
                fs::write(&dest, bytes).map_err(io(&dest))?;
                #[cfg(unix)]
                {
                    use std::os::unix::fs::PermissionsExt;
                    let mode = fs::symlink_metadata(&from)
                        .map_err(io(&from))?
                        .permissions()
                        .mode();
                    let executable = if mode & 0o111 != 0 { 0o755 } else { 0o644 };
                    fs::set_permissions(&dest, fs::Permissions::from_mode(executable))
                        .map_err(io(&dest))?;
                }
            }
            EntryKind::Link => {
                let target = fs::read_link(&from).map_err(io(&from))?;
                #[cfg(unix)]
                std::os::unix::fs::symlink(&target, &dest).map_err(io(&dest))?;
                #[cfg(not(unix))]
                return Err(InstallError::Refused {
                    skill: candidate.name.clone(),
                    reason: format!("{}: symbolic links are installed on Unix only", entry.path),
                });
            }
        }
    }
    let copied = Manifest::of_dir(to, limits).map_err(|source| InstallError::Unsafe {
        skill: candidate.name.clone(),
        source,
    })?;
    if copied.digest() != candidate.manifest.digest() {
        return Err(InstallError::Refused {
            skill: candidate.name.clone(),
            reason: "its files changed while they were copied; try again".to_owned(),
        });
    }
    Ok(())
}

/// Refuses a skill name that cannot be the directory it is installed in.
/// The version `git` reports (`git version 2.47.1`): `skills add` and `install` of git
/// sources need it (`skills doctor` says whether it is there).
///
/// # Errors
/// [`InstallError::Git`] when git cannot be run.
pub fn git_version() -> Result<String, InstallError> {
    git::version()
}

impl Candidate {
    /// The scan's verdict: its most severe finding (`low` to `critical`), or `clean`.
    pub fn verdict(&self) -> &'static str {
        self.report
            .max_severity()
            .map_or("clean", skillful_scan::Severity::as_str)
    }

    /// The names `--skill` picks it by: its name, its frontmatter's, its directory's.
    fn names(&self) -> Vec<&str> {
        let directory = self.path.rsplit('/').next().unwrap_or(&self.path);
        vec![&self.name, &self.declared_name, directory]
    }
}

/// `offered` as a short list in name order: all of them up to twenty, else the first twenty and
/// how many more.
fn offered_list(offered: &[String]) -> String {
    const SHOWN: usize = 20;
    let mut sorted: Vec<&str> = offered.iter().map(String::as_str).collect();
    sorted.sort_unstable();
    match sorted.len() {
        0 => "no skill".to_owned(),
        n if n <= SHOWN => sorted.join(", "),
        n => format!("{}, and {} more", sorted[..SHOWN].join(", "), n - SHOWN),
    }
}

fn check_directory_name(name: &str) -> Result<(), InstallError> {
    if name.is_empty() || name.contains('/') || name.starts_with('.') {
        return Err(InstallError::Refused {
            skill: name.to_owned(),
            reason: "its name cannot be a directory name".to_owned(),
        });
    }
    skillful_core::names::RelativeName::new(name).map_err(|refused| InstallError::Refused {
        skill: name.to_owned(),
        reason: refused.reason.to_owned(),
    })?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::process::Command;

    /// A git repository with one skill at `skills/demo`.
    fn repository() -> tempfile::TempDir {
        let repo = tempfile::tempdir().unwrap();
        let skill = repo.path().join("skills/demo");
        fs::create_dir_all(&skill).unwrap();
        fs::write(
            skill.join("SKILL.md"),
            "---\nname: demo\ndescription: A demo skill.\n---\nBody.\n",
        )
        .unwrap();
        for args in [
            &["init", "--quiet", "-b", "main"][..],
            &["add", "-A"],
            &[
                "-c",
                "user.name=test",
                "-c",
                "user.email=test@example.invalid",
                "commit",
                "--quiet",
                "-m",
                "one skill",
            ],
        ] {
            let done = Command::new("git")
                .arg("-C")
                .arg(repo.path())
                .args(args)
                .output()
                .unwrap();
            assert!(done.status.success(), "git {args:?}: {done:?}");
        }
        repo
    }

    #[test]
    fn a_fetched_tree_is_checked_out_apart_from_its_repository_and_removed_when_dropped() {
        let repo = repository();
        let skills = tempfile::tempdir().unwrap();
        let installer = Installer::new(skills.path().join("skills"));
        fs::create_dir_all(&installer.skills_dir).unwrap();
        let url = format!("file://{}", repo.path().display());
        let (tree, commit, submodules) = installer.fetch_tree(&url, None).unwrap();
        assert_eq!(commit.len(), 40);
        assert!(submodules.is_empty());
        assert!(tree.0.join("skills/demo/SKILL.md").is_file());
        assert!(!tree.0.join(".git").exists(), "the fetch's .git came along");
        // The repository the fetch made is gone; only the tree is left, in memory where this
        // system has a place for it, else beside the skills.
        let left: Vec<PathBuf> = fs::read_dir(&installer.skills_dir)
            .unwrap()
            .map(|entry| entry.unwrap().path())
            .collect();
        if memory_staging().is_some() {
            assert!(left.is_empty(), "{left:?}");
            assert!(!tree.0.starts_with(skills.path()));
        } else {
            assert_eq!(left, std::slice::from_ref(&tree.0));
        }
        let path = tree.0.clone();
        drop(tree);
        assert!(!path.exists());
    }

    #[test]
    fn a_tree_in_memory_left_by_a_process_no_longer_running_is_removed() {
        let Some(mine) = memory_staging() else {
            return; // no memory directory on this system
        };
        let base = mine.0.parent().unwrap().to_owned();
        // No process has an id this high (Linux's limit is 2^22).
        let left = base.join(format!("{STAGING_PREFIX}{}-x", u32::MAX - 1));
        fs::create_dir_all(left.join("skills/demo")).unwrap();
        remove_memory_leftovers();
        assert!(!left.exists(), "a dead process's tree is left");
        assert!(mine.0.exists(), "this process's own tree was removed");
    }
}

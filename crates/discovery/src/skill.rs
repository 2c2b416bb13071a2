use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, LazyLock, Mutex, OnceLock};

use async_trait::async_trait;
use skillful_core::{
    Capabilities, DeclaredRisk, Diagnostic, Lifecycle, LongRunning, Mapping, OriginKind,
    ResourceContent, ResourceRange, RiskTier, Scope, ScriptMonitor, Skill, SkillDocument,
    SkillError, SkillFrontmatter, SkillOrigin, SkillResource, SkillScript,
};
use skillful_frontmatter::{ParseOptions, parse};
use skillful_fs::{FileStamp, blocking};

use crate::guard::{ReadLimits, check_inside, read_inside, read_inside_stamped, read_window};
use crate::packed::{Group, PackedText};
use crate::runner::{FileScriptRequest, SharedScriptRunner};

/// The file that makes a directory a skill.
pub(crate) const SKILL_FILE: &str = "SKILL.md";

/// What every file script accepts: the command-line arguments, as a JSON array of strings.
static FILE_SCRIPT_SCHEMA: LazyLock<serde_json::Value> =
    LazyLock::new(|| serde_json::json!({"type": "array", "items": {"type": "string"}}));

/// A skill read from a directory holding `SKILL.md`.
///
/// Only the frontmatter and the file names were read at discovery. [`Skill::document`] and every
/// resource read go back to the disk, and re-check that the file is still inside the skill
/// directory and reached without a symbolic link.
///
/// Large libraries stay resident, so a skill keeps what it found packed (its frontmatter's
/// strings, its directory below its root, its file names: one string) and shares the rest with
/// the skills of its root. The typed [`Skill::frontmatter`] and [`Skill::origin`], the resource
/// and script objects and the `SKILL.md` cache are made when the skill is first used; the
/// catalog and search read only [`Skill::name`] and [`Skill::description`], which need none of
/// them.
pub struct FileSkill {
    root: Arc<SkillRoot>,
    text: PackedText,
    /// The tier declared for all the skill's scripts (`metadata` key `risk`).
    risk: Option<RiskTier>,
    /// What most skills do not have; `None` when the skill has none of it.
    rare: Option<Box<Rare>>,
    used: OnceLock<Box<Used>>,
}

impl fmt::Debug for FileSkill {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FileSkill")
            .field("name", &self.name())
            .field("dir", &self.dir())
            .field("files", &self.file_names())
            .finish_non_exhaustive()
    }
}

/// What the skills found below one root share.
#[derive(Debug)]
pub(crate) struct SkillRoot {
    /// The root's canonical directory.
    pub(crate) dir: PathBuf,
    /// The root as it was given: the origin's label.
    pub(crate) label: String,
    pub(crate) scope: Scope,
    pub(crate) parse_options: ParseOptions,
    pub(crate) reads: ReadLimits,
    pub(crate) policy: ScriptPolicy,
}

/// The parts of a skill that most skills do not have.
#[derive(Debug, Default)]
struct Rare {
    /// The frontmatter's keys that are not in the specification.
    extra: Mapping,
    diagnostics: Vec<Diagnostic>,
    /// Per script, its tier, when some script declares a tier of its own.
    script_risks: Vec<RiskTier>,
    /// The skill's directory, when it is not a UTF-8 path below its root.
    dir: Option<PathBuf>,
}

/// What is made when the skill is first used.
#[derive(Debug, Default)]
struct Used {
    /// The skill's directory, shared by its reads and its file objects.
    dir: OnceLock<Arc<Path>>,
    frontmatter: OnceLock<SkillFrontmatter>,
    origin: OnceLock<SkillOrigin>,
    /// The last `SKILL.md` read, with the stamp of the file it was read from.
    document: Mutex<Option<(FileStamp, SkillDocument)>>,
}

/// One version of a file of a skill, known without reading it: its device and inode, size,
/// modification time and (on Unix) change time with nanoseconds, so a same-size rewrite given its
/// old modification time back is a new version. While a file's version is unchanged its content is taken as
/// unchanged, so what was computed from its bytes (a digest) can be kept instead of read again.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct FileVersion(FileStamp);

/// How the scripts of one source may run.
#[derive(Debug, Clone)]
pub(crate) struct ScriptPolicy {
    pub(crate) runner: Option<SharedScriptRunner>,
    pub(crate) runnable: bool,
}

/// The parts of a [`FileSkill`] that discovery finds.
pub(crate) struct FoundSkill {
    pub(crate) frontmatter: SkillFrontmatter,
    pub(crate) dir: PathBuf,
    pub(crate) resources: Vec<String>,
    pub(crate) scripts: Vec<String>,
    pub(crate) diagnostics: Vec<Diagnostic>,
}

impl FileSkill {
    /// The skill found below `root`, its scripts' risk tiers read from its `metadata` (a
    /// declaration that is not a tier, or names no script of the skill, becomes a warning).
    pub(crate) fn new(mut found: FoundSkill, root: &Arc<SkillRoot>) -> Self {
        let skill_md = found.dir.join(SKILL_FILE);
        let (declared, warnings) = DeclaredRisk::for_scripts(
            &found.frontmatter.metadata,
            found.scripts.iter().map(String::as_str),
        );
        let capabilities =
            Capabilities::from_metadata(&found.frontmatter.name, &found.frontmatter.metadata)
                .err()
                .map(|error| {
                    Diagnostic::warning(
                        format!("metadata.{}", error.key()),
                        format!("{error}; the skill declares no capability until it is fixed"),
                    )
                });
        let (_, lifecycle) =
            Lifecycle::from_metadata(&found.frontmatter.name, &found.frontmatter.metadata);
        let long_running =
            LongRunning::from_metadata(&found.frontmatter.name, &found.frontmatter.metadata).err();
        let lifecycle = lifecycle.into_iter().chain(long_running).map(|error| {
            Diagnostic::warning(
                format!("metadata.{}", error.key()),
                format!("{error}; it is left out until it is fixed"),
            )
        });
        for warning in warnings.into_iter().chain(capabilities).chain(lifecycle) {
            tracing::warn!(path = %skill_md.display(), field = %warning.field, "{}", warning.message);
            found.diagnostics.push(warning.with_path(&skill_md));
        }
        let relative = found
            .dir
            .strip_prefix(&root.dir)
            .ok()
            .and_then(Path::to_str);
        let mut rare = Rare {
            dir: relative.is_none().then(|| found.dir.clone()),
            ..Rare::default()
        };
        if declared.script_names().next().is_some() {
            rare.script_risks = found
                .scripts
                .iter()
                .map(|script| declared.script(script))
                .collect();
        }
        let frontmatter = found.frontmatter;
        rare.extra = frontmatter.extra;
        rare.diagnostics = found.diagnostics;
        fn one(string: &str) -> Option<Vec<&str>> {
            Some(vec![string])
        }
        let metadata = frontmatter
            .metadata
            .iter()
            .flat_map(|(key, value)| [key.as_str(), value.as_str()])
            .collect();
        let text = PackedText::new([
            one(&frontmatter.name),
            one(&frontmatter.description),
            frontmatter.license.as_deref().and_then(one),
            frontmatter.compatibility.as_deref().and_then(one),
            Some(metadata),
            frontmatter
                .allowed_tools
                .as_ref()
                .map(|tools| tools.iter().map(String::as_str).collect()),
            one(relative.unwrap_or_default()),
            Some(found.resources.iter().map(String::as_str).collect()),
            Some(found.scripts.iter().map(String::as_str).collect()),
        ]);
        let has_rare = !(rare.extra.is_empty()
            && rare.diagnostics.is_empty()
            && rare.script_risks.is_empty()
            && rare.dir.is_none());
        Self {
            root: Arc::clone(root),
            text,
            risk: declared.skill(),
            rare: has_rare.then(|| Box::new(rare)),
            used: OnceLock::new(),
        }
    }

    /// The skill's directory (canonical).
    pub fn dir(&self) -> PathBuf {
        match self.relative_dir() {
            Some("") => self.root.dir.clone(),
            Some(relative) => self.root.dir.join(relative),
            None => self
                .rare()
                .and_then(|rare| rare.dir.clone())
                .unwrap_or_else(|| self.root.dir.clone()),
        }
    }

    /// The skill's directory relative to its root (empty when the root is the skill), when it
    /// is a UTF-8 path below it.
    pub(crate) fn relative_dir(&self) -> Option<&str> {
        match self.rare().and_then(|rare| rare.dir.as_ref()) {
            Some(_) => None,
            None => self.text.first(Group::Dir),
        }
    }

    /// The skill's `SKILL.md`.
    pub fn skill_md_path(&self) -> PathBuf {
        self.dir().join(SKILL_FILE)
    }

    fn used(&self) -> &Used {
        self.used.get_or_init(Box::default)
    }

    fn rare(&self) -> Option<&Rare> {
        self.rare.as_deref()
    }

    /// The names of every file discovery admitted: `SKILL.md`, then the resources, then the
    /// scripts, each `/`-separated and relative to the skill's directory.
    pub fn file_names(&self) -> Vec<&str> {
        std::iter::once(SKILL_FILE)
            .chain(self.text.all(Group::Resources))
            .chain(self.text.all(Group::Scripts))
            .collect()
    }

    /// The bytes of one file discovery admitted (a name from [`FileSkill::file_names`]), as they
    /// are on disk now, checked afresh to lie inside the skill's directory and to be reached
    /// without a symbolic link. `SKILL.md` keeps its frontmatter and any byte-order mark.
    ///
    /// # Errors
    /// [`SkillError::Refused`] for a name the skill does not list, or a file that fails the
    /// check now; [`SkillError::Unreadable`] when it cannot be read.
    pub async fn read_file(&self, name: &str) -> Result<Vec<u8>, SkillError> {
        self.read_file_versioned(name).await.map(|(bytes, _)| bytes)
    }

    /// [`FileSkill::read_file`], with the version of the file the bytes were read from (taken
    /// when it was opened, so a file changed while it was read has another version afterwards).
    ///
    /// # Errors
    /// As [`FileSkill::read_file`].
    pub async fn read_file_versioned(
        &self,
        name: &str,
    ) -> Result<(Vec<u8>, FileVersion), SkillError> {
        self.check_listed(name)?;
        let dir = self.shared_dir();
        let name = name.to_owned();
        let limit = (name == SKILL_FILE).then_some(self.root.parse_options.max_file_bytes as u64);
        let reads = self.root.reads;
        blocking::run("reading a skill file", move || {
            read_inside_stamped(&dir, &name, limit, &reads)
        })
        .await
        .map_err(SkillError::other)?
        .map(|(bytes, stamp)| (bytes, FileVersion(stamp)))
    }

    /// The version of one file discovery admitted (as for [`FileSkill::read_file`]) as it is on
    /// disk now, checked afresh to lie inside the skill's directory and to be reached without a
    /// symbolic link; nothing of it is read. Compare it with the version a read returned to
    /// know whether what was computed from those bytes still holds.
    ///
    /// # Errors
    /// As [`FileSkill::read_file`].
    pub async fn file_version(&self, name: &str) -> Result<FileVersion, SkillError> {
        self.check_listed(name)?;
        let dir = self.shared_dir();
        let name = name.to_owned();
        let (_, metadata) =
            blocking::run("checking a skill file", move || check_inside(&dir, &name))
                .await
                .map_err(SkillError::other)??;
        Ok(FileVersion(FileStamp::of(&metadata)))
    }

    /// At most `max_len` bytes of one file discovery admitted (as for
    /// [`FileSkill::read_file`]), from byte `offset`, with the file's length in bytes: only that
    /// window is read, so a file of any size pages with bounded memory. The window is cut to the
    /// source's read limit ([`FileSkillsSourceBuilder::max_read_bytes`](crate::FileSkillsSourceBuilder::max_read_bytes));
    /// past the end of the file it is empty.
    ///
    /// # Errors
    /// As [`FileSkill::read_file`].
    pub async fn read_window(
        &self,
        name: &str,
        offset: u64,
        max_len: u64,
    ) -> Result<(Vec<u8>, u64), SkillError> {
        self.check_listed(name)?;
        let dir = self.shared_dir();
        let name = name.to_owned();
        let reads = self.root.reads;
        blocking::run("reading a window of a skill file", move || {
            read_window(&dir, &name, offset, max_len, &reads)
        })
        .await
        .map_err(SkillError::other)?
    }

    /// Refuses a name that is not one of [`FileSkill::file_names`].
    fn check_listed(&self, name: &str) -> Result<(), SkillError> {
        if self.file_names().contains(&name) {
            return Ok(());
        }
        Err(SkillError::Refused {
            what: self.dir().join(name).display().to_string(),
            reason: format!(
                "skill '{}' does not list this file; only SKILL.md, its resources and its scripts are read",
                self.name()
            ),
        })
    }

    /// The file of the script called exactly `name`, checked afresh to lie inside the skill's
    /// directory and to be reached without a symbolic link: what a runner is given.
    ///
    /// # Errors
    /// [`SkillError::Script`] when the skill lists no such script;
    /// [`SkillError::Refused`] or [`SkillError::Unreadable`] when the file fails the check now.
    pub async fn script_path(&self, name: &str) -> Result<PathBuf, SkillError> {
        if !self.text.all(Group::Scripts).any(|script| script == name) {
            return Err(self.no_such_script(name));
        }
        checked_script_path(self.shared_dir(), name).await
    }

    /// The skill's directory, shared by its reads and the file objects made for it.
    fn shared_dir(&self) -> Arc<Path> {
        Arc::clone(self.used().dir.get_or_init(|| Arc::from(self.dir())))
    }

    /// The resource object of the resource called `name`.
    fn file_resource(&self, dir: Arc<Path>, name: &str) -> Arc<dyn SkillResource> {
        Arc::new(FileResource {
            name: name.to_owned(),
            dir,
            reads: self.root.reads,
        })
    }

    /// The script object of the script at index `index`, called `name`.
    fn file_script(&self, dir: Arc<Path>, index: usize, name: &str) -> Arc<dyn SkillScript> {
        Arc::new(self.script_at(dir, index, name))
    }

    fn script_at(&self, dir: Arc<Path>, index: usize, name: &str) -> FileScript {
        let risk = self
            .rare()
            .and_then(|rare| rare.script_risks.get(index).copied())
            .or(self.risk)
            .unwrap_or(RiskTier::SCRIPT_DEFAULT);
        FileScript {
            risk,
            network: Skill::capabilities(self).network.is_some(),
            name: name.to_owned(),
            dir,
            skill_name: Arc::from(self.name()),
            policy: self.root.policy.clone(),
        }
    }

    /// The request that running the script called `name` with `arguments` hands the runner,
    /// exactly as the model's call makes it (the path checked to lie inside the skill, the
    /// script's risk tier, the skill's network declaration): for a host that runs a script
    /// itself and wants the runner's whole output, such as `skills run-script`.
    ///
    /// # Errors
    /// [`SkillError::Script`] when the skill has no such script; as [`FileSkill::script_path`].
    pub async fn script_request(
        &self,
        name: &str,
        arguments: serde_json::Value,
    ) -> Result<FileScriptRequest, SkillError> {
        let Some((index, listed)) = self
            .text
            .all(Group::Scripts)
            .enumerate()
            .find(|(_, listed)| *listed == name)
        else {
            return Err(self.no_such_script(name));
        };
        self.script_at(self.shared_dir(), index, listed)
            .request(arguments)
            .await
    }

    fn no_such_script(&self, name: &str) -> SkillError {
        SkillError::Script {
            script: name.to_owned(),
            message: format!(
                "skill '{}' has no such script; its scripts are: {}",
                self.name(),
                listed_names(self.text.all(Group::Scripts))
            ),
        }
    }
}

/// The scripts' names, quoted and separated by commas; `none` when there are none.
fn listed_names<'a>(scripts: impl Iterator<Item = &'a str>) -> String {
    let quoted: Vec<String> = scripts.map(|script| format!("'{script}'")).collect();
    if quoted.is_empty() {
        return "none".to_owned();
    }
    quoted.join(", ")
}

/// `name` below `dir`, checked to lie inside it and to be reached without a symbolic link.
async fn checked_script_path(dir: Arc<Path>, name: &str) -> Result<PathBuf, SkillError> {
    let name = name.to_owned();
    let (path, _) = blocking::run("checking a script's path", move || {
        check_inside(&dir, &name)
    })
    .await
    .map_err(SkillError::other)??;
    Ok(path)
}

#[async_trait]
impl Skill for FileSkill {
    /// Made from what discovery kept when first asked for.
    fn frontmatter(&self) -> &SkillFrontmatter {
        self.used().frontmatter.get_or_init(|| {
            let text = &self.text;
            let owned = |group| text.first(group).map(str::to_owned);
            let mut frontmatter = SkillFrontmatter::new(
                owned(Group::Name).unwrap_or_default(),
                owned(Group::Description).unwrap_or_default(),
            );
            frontmatter.license = owned(Group::License);
            frontmatter.compatibility = owned(Group::Compatibility);
            frontmatter.allowed_tools = text
                .group(Group::AllowedTools)
                .map(|tools| tools.map(str::to_owned).collect());
            let mut metadata = text.all(Group::Metadata);
            while let (Some(key), Some(value)) = (metadata.next(), metadata.next()) {
                frontmatter
                    .metadata
                    .insert(key.to_owned(), value.to_owned());
            }
            if let Some(rare) = self.rare() {
                frontmatter.extra = rare.extra.clone();
            }
            frontmatter
        })
    }

    /// Made when first asked for.
    fn origin(&self) -> &SkillOrigin {
        self.used().origin.get_or_init(|| {
            SkillOrigin::new(OriginKind::Files, self.root.label.clone())
                .with_scope(self.root.scope)
                .with_location(self.dir().display().to_string())
        })
    }

    fn name(&self) -> &str {
        self.text.first(Group::Name).unwrap_or_default()
    }

    fn description(&self) -> &str {
        self.text.first(Group::Description).unwrap_or_default()
    }

    fn scope(&self) -> Scope {
        self.root.scope
    }

    fn risk_tier(&self) -> Option<RiskTier> {
        self.risk
    }

    /// The `SKILL.md` as it is on disk now, split at its frontmatter (the frontmatter as
    /// written). Kept between calls while the file at its path has the stamp (device, inode,
    /// size, modification and change time) of the file it was read from: the same file, unchanged,
    /// whose path was checked when it was read. Any other file is checked afresh (inside the
    /// skill, no symbolic link, a regular file with one link) and read.
    async fn document(&self) -> Result<SkillDocument, SkillError> {
        if let Some(document) = self.unchanged_document() {
            return Ok(document);
        }
        let dir = self.shared_dir();
        let (_, metadata) =
            blocking::run("checking SKILL.md", move || check_inside(&dir, SKILL_FILE))
                .await
                .map_err(SkillError::other)??;
        let bytes = self.read_file(SKILL_FILE).await?;
        let document = split_skill_md(&self.skill_md_path(), &bytes, &self.root.parse_options)?;
        *self.cached_document() = Some((FileStamp::of(&metadata), document.clone()));
        Ok(document)
    }

    fn diagnostics(&self) -> &[Diagnostic] {
        self.rare().map_or(&[], |rare| &rare.diagnostics)
    }

    /// Made anew on each call, from the names discovery kept.
    fn resources(&self) -> Vec<Arc<dyn SkillResource>> {
        let dir = self.shared_dir();
        self.text
            .all(Group::Resources)
            .map(|name| self.file_resource(Arc::clone(&dir), name))
            .collect()
    }

    /// Made anew on each call, from the names discovery kept.
    fn scripts(&self) -> Vec<Arc<dyn SkillScript>> {
        let dir = self.shared_dir();
        self.text
            .all(Group::Scripts)
            .enumerate()
            .map(|(index, name)| self.file_script(Arc::clone(&dir), index, name))
            .collect()
    }

    fn resource(&self, name: &str) -> Option<Arc<dyn SkillResource>> {
        let listed = self
            .text
            .all(Group::Resources)
            .find(|listed| *listed == name)?;
        Some(self.file_resource(self.shared_dir(), listed))
    }

    fn script(&self, name: &str) -> Option<Arc<dyn SkillScript>> {
        let (index, listed) = self
            .text
            .all(Group::Scripts)
            .enumerate()
            .find(|(_, listed)| *listed == name)?;
        Some(self.file_script(self.shared_dir(), index, listed))
    }
}

/// A file of a skill offered to the model to read, such as `references/FAQ.md`.
#[derive(Debug)]
struct FileResource {
    name: String,
    dir: Arc<Path>,
    reads: ReadLimits,
}

#[async_trait]
impl SkillResource for FileResource {
    fn name(&self) -> &str {
        &self.name
    }

    /// The file as it is now: text when it is UTF-8 (without a byte-order mark), bytes otherwise.
    async fn read(&self) -> Result<ResourceContent, SkillError> {
        let dir = self.dir.clone();
        let name = self.name.clone();
        let reads = self.reads;
        let bytes = blocking::run("reading a resource", move || {
            read_inside(&dir, &name, None, &reads)
        })
        .await
        .map_err(SkillError::other)??;
        Ok(match String::from_utf8(bytes) {
            Ok(text) => ResourceContent::Text(match text.strip_prefix('\u{feff}') {
                Some(rest) => rest.to_owned(),
                None => text,
            }),
            Err(error) => ResourceContent::Binary {
                bytes: error.into_bytes(),
                mime_type: None,
            },
        })
    }

    /// Only the window is read, so a file of any size pages with bounded memory (the window is
    /// cut to the source's read limit).
    async fn read_range(&self, offset: u64, max_len: u64) -> Result<ResourceRange, SkillError> {
        let dir = self.dir.clone();
        let name = self.name.clone();
        let reads = self.reads;
        let (bytes, total) = blocking::run("reading a window of a resource", move || {
            read_window(&dir, &name, offset, max_len, &reads)
        })
        .await
        .map_err(SkillError::other)??;
        Ok(ResourceRange::new(bytes, offset.min(total), total, None))
    }
}

/// A script file of a skill, such as `scripts/convert.py`, run by the source's runner.
#[derive(Debug)]
struct FileScript {
    risk: RiskTier,
    /// The skill declares it needs the network.
    network: bool,
    name: String,
    dir: Arc<Path>,
    skill_name: Arc<str>,
    policy: ScriptPolicy,
}

#[async_trait]
impl SkillScript for FileScript {
    fn name(&self) -> &str {
        &self.name
    }

    fn parameters_schema(&self) -> Option<&serde_json::Value> {
        Some(&FILE_SCRIPT_SCHEMA)
    }

    /// The tier declared in the skill's `metadata` (see [`DeclaredRisk`]), else
    /// [`RiskTier::SCRIPT_DEFAULT`].
    fn risk_tier(&self) -> RiskTier {
        self.risk
    }

    /// The runner's profile for the script's tier; `None` when it may not run here.
    fn sandbox_profile(&self) -> Option<String> {
        let runner = self
            .policy
            .runner
            .as_ref()
            .filter(|_| self.policy.runnable)?;
        runner.sandbox_profile(self.risk, self.network)
    }

    /// The runner's timeout.
    fn timeout(&self) -> Option<std::time::Duration> {
        self.policy.runner.as_ref()?.timeout()
    }

    /// Re-checks the script's path, then hands it and the raw arguments to the runner.
    async fn run(&self, arguments: serde_json::Value) -> Result<String, SkillError> {
        let runner = self.runner()?;
        runner.run(self.request(arguments).await?).await
    }

    /// [`FileScript::run`] under `monitor`, which the runner shows the script's output and may
    /// stop it.
    async fn run_monitored(
        &self,
        arguments: serde_json::Value,
        monitor: Arc<dyn ScriptMonitor>,
    ) -> Result<String, SkillError> {
        let runner = self.runner()?;
        runner
            .run_monitored(self.request(arguments).await?, monitor)
            .await
    }
}

impl FileScript {
    /// The runner that may run this script: none when the skill's scripts may not run here or
    /// no runner is configured.
    fn runner(&self) -> Result<&SharedScriptRunner, SkillError> {
        if !self.policy.runnable {
            return Err(SkillError::NotRunnable {
                script: self.name.clone(),
                reason: format!(
                    "the scripts of skill '{}' are not allowed to run: it comes from an untrusted source (such as an archive); read its files instead, or load it from a trusted directory",
                    self.skill_name
                ),
            });
        }
        self.policy
            .runner
            .as_ref()
            .ok_or_else(|| SkillError::NotRunnable {
                script: self.name.clone(),
                reason: "no script runner is configured; give the file source a runner".into(),
            })
    }

    /// What the runner is handed to run this script with `arguments`.
    async fn request(&self, arguments: serde_json::Value) -> Result<FileScriptRequest, SkillError> {
        let script_path = checked_script_path(Arc::clone(&self.dir), &self.name).await?;
        Ok(FileScriptRequest::new(
            self.skill_name.as_ref(),
            self.dir.as_ref(),
            self.name.as_str(),
            script_path,
            arguments,
        )
        .with_risk(self.risk)
        .with_network(self.network))
    }
}

impl FileSkill {
    /// The cached document, when the file at `SKILL.md`'s path is still the one it was read
    /// from, unchanged (the same stamp, a regular file).
    ///
    /// The one file-system call made outside tokio's blocking pool: a single `lstat` of a file
    /// just read, answered from the kernel's caches on a local disk. A hop to the blocking pool
    /// would cost more than the whole cached load (two thread wake-ups, about 10 µs against
    /// MAF's 7 µs per cached `load_skill`); the first read and every re-read still go there.
    fn unchanged_document(&self) -> Option<SkillDocument> {
        let stamp = self.cached_document().as_ref()?.0;
        let metadata = std::fs::symlink_metadata(self.shared_dir().join(SKILL_FILE)).ok()?;
        if !metadata.is_file() || FileStamp::of(&metadata) != stamp {
            return None;
        }
        let cached = self.cached_document();
        let (_, document) = cached.as_ref().filter(|(cached, _)| *cached == stamp)?;
        Some(document.clone())
    }

    fn cached_document(&self) -> std::sync::MutexGuard<'_, Option<(FileStamp, SkillDocument)>> {
        // A panic while the lock was held left at worst a stale entry, which the stamp catches.
        self.used()
            .document
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

/// `SKILL.md`'s bytes split at the frontmatter, after dropping a byte-order mark.
fn split_skill_md(
    path: &Path,
    bytes: &[u8],
    options: &ParseOptions,
) -> Result<SkillDocument, SkillError> {
    let text = std::str::from_utf8(bytes).map_err(|error| SkillError::Refused {
        what: path.display().to_string(),
        reason: format!(
            "the file is not UTF-8 (invalid byte at offset {}); save it as UTF-8",
            error.valid_up_to()
        ),
    })?;
    let document = parse(text, options).map_err(|error| SkillError::Refused {
        what: path.display().to_string(),
        reason: format!(
            "it changed since the skill was found and no longer parses ({error}); fix it, then discover the skills again"
        ),
    })?;
    Ok(SkillDocument::written(
        document.frontmatter_text(),
        document.body(),
    ))
}

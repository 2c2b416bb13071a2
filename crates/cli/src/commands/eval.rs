//! `skills eval`: runs skills' evals with and without the skill against a model and prints a
//! short table (the work is `skillful-eval`'s).

use std::io::{self, Write};
use std::path::PathBuf;
use std::time::Duration;

use anyhow::Context as _;
use skillful_agent::{Aids, ApprovalRules, Mode};
use skillful_core::RiskTier;
use skillful_core::text::{one_line, shorten};
use skillful_eval::{
    Benchmark, COMPARISON_FILE, Comparison, EvalError, EvalRecord, EvalSettings, EvalSummary,
    Evaluator, JudgeSettings, Progress, RunSummary, SkillUnderTest, Stat, Verdict,
};

use crate::audit::AuditFlags;
use crate::converse::{Approve, ModeArg, ModelArgs, asked_mode};
use crate::sandbox::{SandboxFlags, not_isolated_line};
use crate::{Outcome, UsageError, output};

#[derive(Debug, clap::Args)]
pub(crate) struct EvalArgs {
    /// Skill directories (each holding a SKILL.md and evals/evals.json).
    #[arg(value_name = "SKILL_DIR", required_unless_present = "compare")]
    skill_dirs: Vec<PathBuf>,
    /// Compare two versions of one skill, A (the old) then B (the new), on the same evals, runs
    /// and seeds: each a skill directory, an installed skill (`NAME`), or an installed skill at a
    /// git ref of its source (`NAME@REF`, fetched as `skills add` fetches). Prints each figure of both with a verdict
    /// (better, worse, no difference at 95%) and the test; writes comparison.json.
    #[arg(long, num_args = 2, value_names = ["A", "B"], conflicts_with_all = ["skill_dirs", "compare_modes"])]
    compare: Vec<String>,
    #[command(flatten)]
    model: ModelArgs,
    /// How the evaluated agents drive the model, as `skills run --mode` (default: `[agent] mode`
    /// of the user's settings, else `auto`).
    #[arg(long, value_name = "MODE", conflicts_with = "compare_modes")]
    mode: Option<ModeArg>,
    /// Evaluate each skill in both modes, `guided` then `tools`, on the same evals and seeds, and
    /// compare them (each mode's iterations in a directory of its own under the workspace).
    #[arg(long)]
    compare_modes: bool,
    /// Where the iterations go. Default: in your state directory,
    /// `~/.local/state/skillful/eval/<skill name>-<key>`; with several skills, `DIR/<skill name>`.
    /// Refused when it is a symbolic link, or when it or a directory on the way to it is another
    /// user's or writable by others (a sticky directory such as /tmp is fine on the way).
    #[arg(long, value_name = "DIR")]
    workspace: Option<PathBuf>,
    /// How many times each eval runs with and without the skill (and each trigger query runs);
    /// run k uses the seed `--seed` + k - 1.
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=100))]
    runs: u32,
    /// Where expectations written as statements are graded (default: the same endpoint and
    /// model, at temperature 0).
    #[arg(long, value_name = "URL", conflicts_with = "no_judge", value_parser = crate::converse::base_url)]
    judge_endpoint: Option<String>,
    /// Grade no statements: they are reported as ungraded.
    #[arg(long)]
    no_judge: bool,
    /// Which skill tools run without asking; nobody is there to ask, so the others are refused
    /// (and the refusal is in the transcript).
    #[arg(long, value_enum, default_value_t = Approve::ReadOnly)]
    approve: Approve,
    /// Also run scripts up to this risk tier (read, write-low, write-high), where scripts run in
    /// the sandbox of their tier; elsewhere none runs.
    #[arg(long, value_name = "TIER", default_value = "read")]
    approve_up_to: RiskTier,
    /// Do not run tool calls the model writes as text.
    #[arg(long)]
    no_text_tool_calls: bool,
    /// List the valid skill, resource and script names in the tools' schemas (an `enum`, when
    /// there are at most 32), so that servers that constrain tool calls to the schema
    /// (llama.cpp) only let the model name what exists.
    #[arg(long)]
    enum_names: bool,
    /// Print the benchmark as JSON (an array of them for several skills) instead of the table.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    audit: AuditFlags,
    #[command(flatten)]
    sandbox: SandboxFlags,
}

/// Runs `skills eval`: each skill's evals, a table (or JSON) of their benchmarks.
pub(crate) async fn run(args: EvalArgs) -> anyhow::Result<Outcome> {
    // The endpoint is set once the server is found.
    let mut settings = EvalSettings::new("");
    settings.sandbox = args.sandbox.mode();
    settings.allow_write = args.sandbox.allowed_writes()?;
    settings.approval = ApprovalRules::new(args.approve.into()).approve_up_to(args.approve_up_to);
    // First: that evaluating runs the skill's code, and how.
    say_sandbox(&settings, args.approve_up_to)?;
    if let [a, b] = args.compare.as_slice() {
        let (a, b) = (Version::resolve(a).await?, Version::resolve(b).await?);
        return compare(&args, settings, &a, &b).await;
    }
    // Checked before a model server is looked for (or an engine installed and started).
    let mut skills = Vec::new();
    for dir in &args.skill_dirs {
        skills.push(SkillUnderTest::load(dir).await.map_err(usage)?);
    }
    let (endpoint, _engine) = args.model.server().await?;
    configure(&mut settings, &args, &endpoint)?;
    let modes = if args.compare_modes {
        vec![Mode::Guided, Mode::Tools]
    } else {
        vec![asked_mode(args.mode)?.0]
    };
    let mut benchmarks = Vec::new();
    let mut out = output::stdout();
    for skill in &skills {
        let mut compared = Vec::new();
        for &mode in &modes {
            settings.mode = mode;
            let evaluator = Evaluator::new(settings.clone())?;
            let mut workspace = skill.workspace(args.workspace.as_deref(), skills.len())?;
            if args.compare_modes {
                workspace = workspace.join(evaluator.mode().as_str());
            }
            writeln!(
                output::stderr(),
                "skills: evaluating {} ({} evals × {} run{}, mode {}) against {}",
                one_line(skill.name()),
                skill.evals().evals.len(),
                args.runs,
                if args.runs == 1 { "" } else { "s" },
                evaluator.mode(),
                one_line(&endpoint.to_string())
            )?;
            let report = evaluator
                .evaluate(skill, &skills, &workspace, &show_progress)
                .await
                .map_err(unreachable)
                .with_context(|| format!("evaluating {}", skill.name()))?;
            record(&report.benchmark, skill)?;
            if !args.json {
                table(&mut out, &report.benchmark)?;
                let written = report.iteration_dir.join("benchmark.json");
                writeln!(
                    out,
                    "  written: {}",
                    one_line(&written.display().to_string())
                )?;
            }
            compared.push(report.benchmark.clone());
            benchmarks.push(report.benchmark);
        }
        // The modes compared as two versions are: tools (A) against guided (B).
        if let [guided, tools] = compared.as_slice()
            && !args.json
        {
            let digest = skillful_fs::sha256_file(&skill.dir().join("SKILL.md"), 16 << 20)
                .ok()
                .flatten()
                .map(|digest| digest.sha256);
            let comparison = Comparison::of(
                skillful_eval::Version::new("tools", digest.clone(), tools.clone()),
                skillful_eval::Version::new("guided", digest, guided.clone()),
            );
            print_comparison(&mut out, &comparison)?;
        }
    }
    if args.json {
        match benchmarks.as_slice() {
            [one] => out.json(one)?,
            many => out.json(&many)?,
        }
    }
    let runs = benchmarks.iter().flat_map(|benchmark| &benchmark.runs);
    let failed: Vec<&str> = runs
        .clone()
        .filter_map(|run| run.error.as_deref())
        .collect();
    if let Some(first) = failed.first() {
        // The figures leave those runs out; a gate must not pass on what was not measured.
        writeln!(
            output::stderr(),
            "skills: {} of {} runs ended with an error and are left out of the pass rates \
             (the first: {})",
            failed.len(),
            runs.count(),
            one_line(first)
        )?;
        return Ok(Outcome::Failed);
    }
    Ok(Outcome::Ok)
}

/// One version of `--compare`: a skill directory, or an installed skill fetched at a ref (the
/// fetch kept until the evaluation ends).
struct Version {
    label: String,
    skill: SkillUnderTest,
    _fetched: Option<skillful_install::Prepared>,
}

impl Version {
    /// `given` as a directory when it is one, else as `NAME@REF` of the user's installed skills,
    /// or `NAME` of one as installed.
    async fn resolve(given: &str) -> anyhow::Result<Self> {
        let as_dir = PathBuf::from(given);
        if as_dir.is_dir() {
            return Ok(Self {
                label: given.to_owned(),
                skill: SkillUnderTest::load(&as_dir).await.map_err(usage)?,
                _fetched: None,
            });
        }
        let installer = crate::supply::ScopeArgs::user_scope().installer()?;
        let Some((name, reference)) = given
            .rsplit_once('@')
            .filter(|(name, reference)| !name.is_empty() && !reference.is_empty())
        else {
            // A name alone: the installed skill as it is.
            let installed = installer.skills_dir().join(given);
            if installer.lock()?.skills.contains_key(given) && installed.is_dir() {
                return Ok(Self {
                    label: given.to_owned(),
                    skill: SkillUnderTest::load(&installed).await.map_err(usage)?,
                    _fetched: None,
                });
            }
            return Err(UsageError(format!(
                "--compare {}: neither a skill directory, nor an installed skill, nor NAME@REF of one",
                one_line(given)
            ))
            .into());
        };
        let fetched = installer
            .fetch_version(name, reference)
            .map_err(|error| UsageError(format!("--compare {}: {error}", one_line(given))))?;
        let dir = fetched.candidates[0].dir().to_path_buf();
        Ok(Self {
            label: given.to_owned(),
            skill: SkillUnderTest::load(&dir).await.map_err(usage)?,
            _fetched: Some(fetched),
        })
    }
}

/// Adds the evaluation `benchmark` of `skill` to the user's record, which keeps every
/// evaluation whatever workspace it wrote to; one that cannot be added is a warning.
fn record(benchmark: &Benchmark, skill: &SkillUnderTest) -> io::Result<()> {
    let summary = EvalSummary::of(benchmark, skill);
    if let Err(error) = EvalRecord::per_user().and_then(|record| record.append(&summary)) {
        writeln!(
            output::stderr(),
            "skills: warning: the evaluation is not in your record of evaluations: {}",
            one_line(&error.to_string())
        )?;
    }
    Ok(())
}

/// `skills eval --compare A B`: both versions on the same evals and seeds, B judged against A.
async fn compare(
    args: &EvalArgs,
    mut settings: EvalSettings,
    a: &Version,
    b: &Version,
) -> anyhow::Result<Outcome> {
    if a.skill.name() != b.skill.name() {
        return Err(UsageError(format!(
            "--compare: A is skill {} and B is skill {}; compare two versions of one skill",
            one_line(a.skill.name()),
            one_line(b.skill.name())
        ))
        .into());
    }
    let (endpoint, _engine) = args.model.server().await?;
    configure(&mut settings, args, &endpoint)?;
    settings.mode = asked_mode(args.mode)?.0;
    // Only the runs with each version are compared.
    settings.baseline = false;
    let evaluator = Evaluator::new(settings)?;
    let workspace = b
        .skill
        .workspace(args.workspace.as_deref(), 1)?
        .join("compare");
    writeln!(
        output::stderr(),
        "skills: comparing {} ({}) with {} ({}) on {} evals × {} run{}, mode {}",
        one_line(&b.label),
        one_line(b.skill.name()),
        one_line(&a.label),
        one_line(a.skill.name()),
        b.skill.evals().evals.len(),
        args.runs,
        if args.runs == 1 { "" } else { "s" },
        evaluator.mode()
    )?;
    let comparison = evaluator
        .compare(
            (&a.label, &a.skill),
            (&b.label, &b.skill),
            &workspace,
            &show_progress,
        )
        .await
        .map_err(unreachable)?;
    for (version, skill) in [(&comparison.a, &a.skill), (&comparison.b, &b.skill)] {
        record(&version.benchmark, skill)?;
    }
    let mut out = output::stdout();
    if args.json {
        out.json(&comparison)?;
    } else {
        print_comparison(&mut out, &comparison)?;
        writeln!(
            out,
            "  written: {}",
            one_line(&workspace.join(COMPARISON_FILE).display().to_string())
        )?;
    }
    Ok(Outcome::Ok)
}

/// Each figure of both versions, with the verdict on B and the test.
fn print_comparison(
    out: &mut output::Writer<impl Write>,
    comparison: &Comparison,
) -> io::Result<()> {
    writeln!(
        out,
        "{}: B {} against A {}",
        one_line(&comparison.skill),
        one_line(&comparison.b.label),
        one_line(&comparison.a.label)
    )?;
    writeln!(
        out,
        "  {:<18} {:>22} {:>22}  B against A (95%)",
        "", "A", "B"
    )?;
    for figure in &comparison.figures {
        let value = |value: Option<f64>, interval: Option<(f64, f64)>| match (value, interval) {
            (None, _) => "–".to_owned(),
            (Some(value), Some((low, high))) => {
                format!("{:.2} [{:.2}, {:.2}]", value, low, high)
            }
            (Some(value), None) if value.abs() >= 100.0 => format!("{value:.0}"),
            (Some(value), None) => format!("{value:.2}"),
        };
        let verdict = match figure.verdict {
            Verdict::Better => "better",
            Verdict::Worse => "worse",
            Verdict::NoDifference => "no difference",
            Verdict::NotMeasured => "not measured",
        };
        let p_value = figure
            .p_value
            .map(|p| format!(" (p = {p:.3})"))
            .unwrap_or_default();
        writeln!(
            out,
            "  {:<18} {:>22} {:>22}  {verdict}{p_value}",
            figure.name,
            value(figure.a, figure.a_interval),
            value(figure.b, figure.b_interval)
        )?;
    }
    let tests: std::collections::BTreeSet<&str> = comparison
        .figures
        .iter()
        .map(|figure| figure.test.as_str())
        .collect();
    for test in tests {
        writeln!(out, "  test: {test}")?;
    }
    Ok(())
}

/// Says on stderr that evaluating runs the skill's code, and in which sandbox; a runner that
/// cannot be built is a usage error.
fn say_sandbox(settings: &EvalSettings, up_to: RiskTier) -> anyhow::Result<()> {
    let runner = settings
        .script_runner()
        .build()
        .map_err(|error| UsageError(error.to_string()))?;
    let then = "evaluating a skill runs its code, so none of its scripts runs: skill scripts are \
                refused and script checks left ungraded";
    let line = not_isolated_line(&runner, then).unwrap_or_else(|| {
        format!(
            "skills: evaluating a skill runs its code: its scripts run in the sandbox of their \
             risk tier (up to `{}` without asking: {}), its check scripts as `read`",
            up_to,
            runner.profile_summary(up_to, false)
        )
    });
    writeln!(output::stderr(), "{line}")?;
    Ok(())
}

/// The settings `args` give, against the server at `endpoint`.
fn configure(settings: &mut EvalSettings, args: &EvalArgs, endpoint: &str) -> anyhow::Result<()> {
    let model = &args.model;
    settings.endpoint = endpoint.to_owned();
    settings.api_key = model.api_key();
    settings.model = model.model.clone();
    settings.temperature = model.temperature;
    settings.max_tokens = Some(model.max_tokens);
    settings.seed = model.seed;
    settings.runs = args.runs;
    settings.call_timeout = Duration::from_secs(model.call_timeout);
    // The aids `skills run` applies: activation by the runtime for loopback servers.
    let local = skillful_chat::OpenAiClient::builder(endpoint)
        .build()
        .is_ok_and(|client| client.is_loopback());
    settings.aids = Aids::new()
        .activation(local)
        .text_tool_calls(!args.no_text_tool_calls);
    settings.enum_names = args.enum_names;
    settings.judge = match (&args.judge_endpoint, args.no_judge) {
        (_, true) => JudgeSettings::None,
        (Some(url), false) => JudgeSettings::Endpoint(url.clone()),
        (None, false) => JudgeSettings::SameEndpoint,
    };
    settings.audit = Some(
        args.audit
            .settings("skills eval", skillful_audit::UserLog::Agent)?,
    );
    Ok(())
}

/// A server that is not there gets a line saying what to do.
fn unreachable(error: EvalError) -> anyhow::Error {
    match error {
        EvalError::Unreachable(error) => anyhow::anyhow!(
            "{error}; start an OpenAI-compatible server there or pass --endpoint URL"
        ),
        other => other.into(),
    }
}

/// A skill or an evals file that cannot be read is the caller's to fix.
fn usage(error: EvalError) -> anyhow::Error {
    match error {
        EvalError::NotASkill { .. } | EvalError::Spec { .. } | EvalError::TooLarge { .. } => {
            UsageError(one_line(&error.to_string()).into_owned()).into()
        }
        other => other.into(),
    }
}

/// One line on stderr per run and trigger query.
fn show_progress(progress: Progress<'_>) {
    match progress {
        Progress::Run(record) => {
            let result = &record.result;
            let graded = if result.ungraded > 0 {
                format!(", {} ungraded", result.ungraded)
            } else {
                String::new()
            };
            let error = record
                .error
                .as_deref()
                .map(|e| format!(" — ended early: {}", one_line(e)))
                .unwrap_or_default();
            let _ = writeln!(
                output::stderr(),
                "skills: {} {} run {}: {}/{} passed{graded} ({:.1} s, {} tool calls{}){error}",
                one_line(&record.eval_name),
                record.configuration.name(),
                record.run_number,
                result.passed,
                result.total,
                result.time_seconds,
                result.tool_calls,
                if result.skill_loaded {
                    ", skill loaded"
                } else {
                    ""
                },
            );
        }
        Progress::Trigger(result) => {
            let _ = writeln!(
                output::stderr(),
                "skills: trigger run {} {} (should {}trigger): \"{}\"",
                result.run_number,
                if result.triggered {
                    "loaded"
                } else {
                    "not loaded"
                },
                if result.query.should_trigger {
                    ""
                } else {
                    "not "
                },
                one_line(&shorten(&result.query.query, 60)),
            );
        }
        _ => {}
    }
}

/// The short table: pass counts per eval, then the means, deltas and triggers.
fn table(out: &mut output::Writer<impl Write>, benchmark: &Benchmark) -> io::Result<()> {
    let runs = benchmark.metadata.runs_per_configuration;
    writeln!(
        out,
        "{}: {} evals, {} run{} each, mode {}",
        one_line(&benchmark.metadata.skill_name),
        benchmark.metadata.evals_run.len(),
        runs,
        if runs == 1 { "" } else { "s" },
        one_line(&benchmark.metadata.mode)
    )?;
    writeln!(out, "  {:<28} {:>14} {:>14}", "", "WITH SKILL", "WITHOUT")?;
    for totals in benchmark.eval_totals() {
        writeln!(
            out,
            "  {:<28} {:>14} {:>14}",
            one_line(&shorten(&totals.eval_name, 28)),
            totals.with_skill.to_string(),
            totals.without_skill.to_string()
        )?;
    }
    summary(out, &benchmark.run_summary)?;
    if let Some(triggers) = &benchmark.triggers {
        writeln!(
            out,
            "  triggers: precision {}, recall {} ({} queries: {} loaded as they should, {} \
             loaded wrongly, {} missed)",
            share(triggers.precision),
            share(triggers.recall),
            triggers.queries,
            triggers.true_positives,
            triggers.false_positives,
            triggers.false_negatives
        )?;
    }
    Ok(())
}

/// The table's rows of means (± standard deviation) with and without the skill, and deltas.
fn summary(out: &mut output::Writer<impl Write>, summary: &RunSummary) -> io::Result<()> {
    let with = &summary.with_skill;
    let without = &summary.without_skill;
    let delta = |value: Option<f64>, digits: usize| {
        value.map_or("n/a".to_owned(), |v| format!("{v:+.digits$}"))
    };
    let rows = [
        (
            "pass rate",
            with.pass_rate,
            without.pass_rate,
            summary.delta.pass_rate,
            2,
        ),
        (
            "seconds per run",
            with.time_seconds,
            without.time_seconds,
            summary.delta.time_seconds,
            1,
        ),
        (
            "tokens per run",
            with.tokens,
            without.tokens,
            summary.delta.tokens,
            0,
        ),
    ];
    for (name, with, without, change, digits) in rows {
        writeln!(
            out,
            "  {:<28} {:>14} {:>14}   delta {}",
            name,
            stat(with, digits),
            stat(without, digits),
            delta(change, digits)
        )?;
    }
    writeln!(
        out,
        "  {:<28} {:>14} {:>14}",
        "valid tool calls",
        share(with.tool_call_validity),
        share(without.tool_call_validity)
    )?;
    writeln!(
        out,
        "  {:<28} {:>14}",
        "skill loaded",
        format!("{}/{}", with.skill_loaded, with.runs)
    )?;
    if with.errors + without.errors > 0 {
        writeln!(
            out,
            "  {:<28} {:>14} {:>14}",
            "runs ended by an error", with.errors, without.errors
        )?;
    }
    Ok(())
}

fn stat(stat: Option<Stat>, digits: usize) -> String {
    stat.map_or("n/a".to_owned(), |s| {
        format!("{:.digits$} ± {:.digits$}", s.mean, s.stddev)
    })
}

fn share(value: Option<f64>) -> String {
    value.map_or("n/a".to_owned(), |v| format!("{v:.2}"))
}

//! Long-running scripts in `skills run` and `skills chat`: the flags, the live progress of every
//! script (its lines as they come, escaped, with the time it has run), and what is said of tasks
//! that start, end or were lost.

use std::sync::Arc;
use std::time::Duration;

use skillful_core::OutputStream;
use skillful_core::text::one_line;
use skillful_provider::{DEFAULT_TASK_LIMIT, TaskEvent, TaskSettings, Tasks};
use skillful_scripts::ProcessRunnerBuilder;
use tokio::sync::broadcast::error::RecvError;

use crate::output;
use crate::sandbox::parse_seconds;

/// How `skills run` and `skills chat` treat scripts that run long.
#[derive(Debug, clap::Args)]
pub(crate) struct TaskFlags {
    /// A script still running after this many seconds becomes a task: the model answers, and the
    /// script's result continues the conversation when it ends (a skill's `metadata.long-running`
    /// makes its scripts tasks at once).
    #[arg(long, value_name = "SECS", value_parser = parse_seconds, default_value = "15")]
    task_after: Duration,
    /// The most a script may run, as a task too, before it is stopped with every process it
    /// started (default 1800; 30 with --no-tasks).
    #[arg(long, value_name = "SECS", value_parser = parse_seconds)]
    script_timeout: Option<Duration>,
    /// Wait for every script before the model goes on, as without tasks.
    #[arg(long)]
    no_tasks: bool,
}

impl TaskFlags {
    /// The runner's time limit: a task's when tasks are on.
    pub(super) fn limit(&self, builder: ProcessRunnerBuilder) -> ProcessRunnerBuilder {
        match (self.script_timeout, self.no_tasks) {
            (Some(limit), _) => builder.timeout(limit),
            (None, false) => builder.timeout(DEFAULT_TASK_LIMIT),
            (None, true) => builder,
        }
    }

    /// The provider's task settings; `None` with `--no-tasks`.
    pub(super) fn settings(&self) -> Option<TaskSettings> {
        (!self.no_tasks).then(|| TaskSettings::default().after(self.task_after))
    }
}

/// Shows every script's lines as they come and each task's start and end, on stderr (the
/// transcript, or `--json`'s report, is stdout's), until the provider is gone.
pub(super) fn show_progress(tasks: &Arc<Tasks>) {
    let mut events = tasks.subscribe();
    tokio::spawn(async move {
        loop {
            let event = match events.recv().await {
                Ok(event) => event,
                Err(RecvError::Lagged(missed)) => {
                    let _ = writeln!(
                        output::stderr(),
                        "   [{missed} lines of script output not shown: they came too fast]"
                    );
                    continue;
                }
                Err(RecvError::Closed) => return,
            };
            if let Some(line) = progress_line(&event) {
                let _ = writeln!(output::stderr(), "{line}");
            }
        }
    });
}

/// The line that shows `event`.
fn progress_line(event: &TaskEvent) -> Option<String> {
    Some(match event {
        TaskEvent::Line {
            skill,
            script,
            stream,
            line,
            elapsed,
            ..
        } => {
            let stream = match stream {
                OutputStream::Stdout => "",
                OutputStream::Stderr => " stderr",
            };
            format!(
                "   [{skill} {script} {:.1}s{stream}] {}",
                elapsed.as_secs_f64(),
                one_line(line)
            )
        }
        TaskEvent::Started { record, .. } => format!(
            "   [task {} started: {} {} goes on while the conversation does]",
            record.task_id,
            one_line(&record.skill),
            one_line(&record.script)
        ),
        TaskEvent::Ended { record, .. } => {
            let exit = record
                .exit_code
                .map(|code| format!(", exit code {code}"))
                .unwrap_or_default();
            format!(
                "   [task {} ended: {}{exit}, after {:.1}s]",
                record.task_id,
                record.status.as_str(),
                record.elapsed_ms as f64 / 1000.0
            )
        }
        _ => return None,
    })
}

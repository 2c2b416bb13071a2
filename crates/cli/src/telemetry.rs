//! OpenTelemetry export for the commands that run agents or serve skills (`run`, `chat`,
//! `eval`, `serve`): the `OTEL_*` variables decide, `skillful-telemetry` does the work.

use skillful_core::text::one_line;
use skillful_telemetry::Telemetry;

use crate::output;

/// The service name spans carry unless `OTEL_SERVICE_NAME` says otherwise.
const SERVICE: &str = "skills";

/// How much of a run the spans hold.
#[derive(Debug, clap::Args)]
pub(crate) struct TelemetryFlags {
    /// Record prompts, answers and tool-call arguments and results on the exported spans (as
    /// `OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true` does); off by default.
    #[arg(long)]
    otel_capture_content: bool,
}

impl TelemetryFlags {
    /// Whether contents go on the spans: the flag or the variable.
    pub(crate) fn capture(&self) -> bool {
        self.otel_capture_content || skillful_telemetry::capture_message_content()
    }
}

/// The export the variables ask for; a variable it cannot honour is one warning, and the
/// command runs without export. Call it inside the command's runtime (gRPC's connection task
/// runs there).
pub(crate) fn start() -> Option<Telemetry> {
    match Telemetry::from_env(SERVICE) {
        Ok(telemetry) => telemetry,
        Err(error) => {
            let _ = writeln!(
                output::stderr(),
                "skills: warning: traces are not exported: {}",
                one_line(&error.to_string())
            );
            None
        }
    }
}

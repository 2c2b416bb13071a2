//! What a run gives: the structured result, and its text for the model.

use std::fmt;

use serde::Serialize;

/// The result of one script run.
///
/// `Display` (and [`ScriptOutput::render`]) gives the text the model is shown.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct ScriptOutput {
    /// What the script printed on standard output (invalid UTF-8 replaced), up to the limit.
    pub stdout: String,
    /// What the script printed on standard error (invalid UTF-8 replaced), up to the limit.
    pub stderr: String,
    /// The exit code; `None` when the process was ended by a signal (as on a timeout).
    pub exit_code: Option<i32>,
    /// The signal that ended the process, if one did (`SIGXCPU` when its CPU time ran out).
    pub signal: Option<i32>,
    /// Whether the run went past its time limit and was killed with its process group.
    pub timed_out: bool,
    /// Whether its caller asked for it to stop before it ended (a cancelled task), and it was
    /// stopped with every process it started.
    pub cancelled: bool,
    /// Whether stdout or stderr went past the output limit; the rest was read and discarded.
    pub truncated: bool,
    /// How long the run took, from spawning to the end of its output, in milliseconds.
    pub duration_ms: u64,
    /// The sandbox profile the script ran in (`read — writes only in $TMPDIR, no network`);
    /// `None` when it was not confined.
    pub sandbox: Option<String>,
    /// What the runner could tell about how the sandbox hindered the run: a denied access, a
    /// limit hit; each line says how the user can allow it.
    pub sandbox_notes: Vec<String>,
}

impl ScriptOutput {
    /// Whether the script finished in time with exit code 0.
    pub fn succeeded(&self) -> bool {
        !self.timed_out && !self.cancelled && self.exit_code == Some(0)
    }

    /// The text the model is shown, as the reference's script runner writes it: the output, then
    /// `[stderr]` and the error output when there is any, then `[exit code: N]` when it is not
    /// 0; `(no output)` when neither stream printed anything. A run that timed out or printed
    /// more than the limit ends with a line saying so. A confined run that failed or was
    /// hindered by the sandbox ends with a line naming its profile
    /// (`[sandbox: read — writes only in $TMPDIR, no network]`) and what was denied.
    ///
    /// # Example
    /// ```
    /// use skillful_scripts::ScriptOutput;
    ///
    /// let mut output = ScriptOutput::default();
    /// assert_eq!(output.render(), "(no output)");
    /// output.stdout = "42\n".into();
    /// output.stderr = "warning: rounded\n".into();
    /// output.exit_code = Some(3);
    /// assert_eq!(output.render(), "42\n[stderr]\nwarning: rounded\n[exit code: 3]");
    /// ```
    pub fn render(&self) -> String {
        let stdout = self.stdout.trim_end_matches(['\r', '\n']);
        let stderr = self.stderr.trim_end_matches(['\r', '\n']);
        let mut lines = Vec::new();
        if !stdout.is_empty() {
            lines.push(stdout.to_owned());
        }
        if !stderr.is_empty() {
            lines.push(format!("[stderr]\n{stderr}"));
        }
        if lines.is_empty() {
            lines.push("(no output)".to_owned());
        }
        match self.exit_code {
            Some(0) => {}
            Some(code) => lines.push(format!("[exit code: {code}]")),
            None if self.timed_out || self.cancelled => {}
            None => lines.push("[exit code: none; the script was ended by a signal]".to_owned()),
        }
        if self.timed_out {
            lines.push(format!(
                "[timed out after {} ms: the script and its child processes were killed; the output above is what it printed until then]",
                self.duration_ms
            ));
        }
        if self.cancelled {
            lines.push(format!(
                "[cancelled after {} ms: the script and its child processes were stopped; the output above is what it printed until then]",
                self.duration_ms
            ));
        }
        if let Some(profile) = &self.sandbox
            && (!self.succeeded() || !self.sandbox_notes.is_empty())
        {
            lines.push(format!("[sandbox: {profile}]"));
            lines.extend(self.sandbox_notes.iter().cloned());
        }
        if self.truncated {
            lines.push(
                "[output truncated: the script printed more than the runner's limit; only the beginning of each stream is shown]"
                    .to_owned(),
            );
        }
        lines.join("\n")
    }
}

impl Default for ScriptOutput {
    /// A run that printed nothing and exited with code 0 at once.
    fn default() -> Self {
        Self {
            stdout: String::new(),
            stderr: String::new(),
            exit_code: Some(0),
            signal: None,
            timed_out: false,
            cancelled: false,
            truncated: false,
            duration_ms: 0,
            sandbox: None,
            sandbox_notes: Vec::new(),
        }
    }
}

impl fmt::Display for ScriptOutput {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.render())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn output(stdout: &str, stderr: &str, exit_code: Option<i32>) -> ScriptOutput {
        ScriptOutput {
            stdout: stdout.into(),
            stderr: stderr.into(),
            exit_code,
            ..ScriptOutput::default()
        }
    }

    #[test]
    fn render_shows_output_then_stderr_then_a_non_zero_exit_code() {
        assert_eq!(output("a\nb\n", "", Some(0)).render(), "a\nb");
        assert_eq!(
            output("", "oops\n", Some(2)).render(),
            "[stderr]\noops\n[exit code: 2]"
        );
        assert_eq!(
            output("\n", "", Some(1)).render(),
            "(no output)\n[exit code: 1]"
        );
        assert_eq!(
            output("", "", None).render(),
            "(no output)\n[exit code: none; the script was ended by a signal]"
        );
    }

    #[test]
    fn render_says_when_the_run_timed_out_or_was_truncated() {
        let mut timed_out = output("partial\n", "", None);
        timed_out.timed_out = true;
        timed_out.truncated = true;
        timed_out.duration_ms = 1500;
        let text = timed_out.render();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], "partial");
        assert!(lines[1].starts_with(
            "[timed out after 1500 ms: the script and its child processes were killed"
        ));
        assert!(lines[2].starts_with("[output truncated:"));
        assert_eq!(lines.len(), 3);
    }
}

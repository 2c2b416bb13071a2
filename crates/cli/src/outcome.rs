//! What a command gives back to `main`, which turns it into the exit code: its [`Outcome`], or
//! an error ([`UsageError`]: exit code 2; any other: 1).

/// What a command reports back to `main`.
pub(crate) enum Outcome {
    /// Done, nothing wrong.
    Ok,
    /// Done, and the input has errors.
    Invalid,
    /// Done, and what was run failed (a script's non-zero exit or timeout).
    Failed,
    /// Stopped with a call waiting for an approval (exit code 3): the answer is not given yet.
    Pending,
}

/// A mistake in how the command was called, as opposed to a problem in the skills.
#[derive(Debug)]
pub(crate) struct UsageError(pub(crate) String);

impl std::fmt::Display for UsageError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for UsageError {}

//! The one way the workspace runs blocking work (file system, plugin calls, archive packing,
//! waiting for a process) from async code, and its one panic policy.

use std::any::Any;
use std::fmt;

/// Blocking work that did not return: it panicked, or the runtime shut down first.
///
/// Its text names the work (`reading a file panicked: boom`); every error type of the workspace
/// that blocking work reports through converts from it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Interrupted {
    message: String,
}

impl fmt::Display for Interrupted {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Interrupted {}

impl From<Interrupted> for std::io::Error {
    fn from(interrupted: Interrupted) -> Self {
        std::io::Error::other(interrupted)
    }
}

/// Runs `work` on tokio's blocking pool and returns what it returned.
///
/// A panic in `work` never reaches the caller: it becomes an [`Interrupted`] naming `what` and
/// the panic's message, and is logged, so one bad file or plugin call cannot take the host
/// down. A task cancelled because the runtime shuts down is an [`Interrupted`] too. Fallible
/// work is awaited with `??` (or its caller's error mapped from [`Interrupted`]).
///
/// # Errors
/// The panic or cancellation as above.
///
/// # Example
/// ```
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let length = skillful_fs::blocking::run("reading a file", || 42).await.unwrap();
/// assert_eq!(length, 42);
/// let error = skillful_fs::blocking::run::<(), _>("a bad call", || panic!("boom")).await;
/// assert_eq!(error.unwrap_err().to_string(), "a bad call panicked: boom");
/// # });
/// ```
#[cfg(feature = "blocking")]
pub async fn run<T, F>(what: &str, work: F) -> Result<T, Interrupted>
where
    F: FnOnce() -> T + Send + 'static,
    T: Send + 'static,
{
    match tokio::task::spawn_blocking(work).await {
        Ok(value) => Ok(value),
        Err(error) if error.is_panic() => {
            let payload = error.into_panic();
            let message = panic_message(payload.as_ref());
            tracing::error!("{what} panicked: {message}");
            Err(Interrupted {
                message: format!("{what} panicked: {message}"),
            })
        }
        Err(error) => Err(Interrupted {
            message: format!("{what} was cancelled because the runtime is shutting down: {error}"),
        }),
    }
}

/// Runs `work` on tokio's blocking pool without waiting for it, for work its caller need not
/// wait for (flushing a log to disk in the background); call it within a tokio runtime.
///
/// A panic is logged as [`run`] logs it; `work` and the log see the caller's `tracing`
/// subscriber.
///
/// # Example
/// ```
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let (sender, receiver) = std::sync::mpsc::channel();
/// skillful_fs::blocking::spawn("sending a number", move || sender.send(7).unwrap());
/// let received = skillful_fs::blocking::run("receiving it", move || receiver.recv()).await;
/// assert_eq!(received.unwrap(), Ok(7));
/// # });
/// ```
#[cfg(feature = "blocking")]
pub fn spawn<F>(what: &str, work: F)
where
    F: FnOnce() + Send + 'static,
{
    use tracing::instrument::WithSubscriber as _;
    let what = what.to_owned();
    let dispatch = tracing::dispatcher::get_default(tracing::Dispatch::clone);
    let inner = dispatch.clone();
    let detached = async move {
        // Nobody waits for the outcome: `run` has logged a panic, and work cancelled because
        // the runtime shuts down had nobody to tell.
        let _ = run(&what, move || {
            tracing::dispatcher::with_default(&inner, work)
        })
        .await;
    };
    tokio::spawn(detached.with_subscriber(dispatch));
}

/// The message a panic carried, when it is text; `(no message)` otherwise.
pub fn panic_message(payload: &(dyn Any + Send)) -> &str {
    payload
        .downcast_ref::<&str>()
        .copied()
        .or_else(|| payload.downcast_ref::<String>().map(String::as_str))
        .unwrap_or("(no message)")
}

//! The one way the workspace runs blocking work (file system, plugin calls, archive packing) from
//! async code, and its one panic policy.

use std::any::Any;

use crate::error::SkillError;

/// Runs `work` on tokio's blocking pool and returns its result.
///
/// A panic in `work` never reaches the caller: it becomes [`SkillError::Other`] naming `what`
/// and the panic's message, and is logged, so one bad file or plugin call cannot take the host
/// down. A task cancelled because the runtime shuts down is an error too.
///
/// # Errors
/// What `work` returns, or the panic or cancellation as above.
///
/// # Example
/// ```
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let length = skillful_core::blocking::run("reading a file", || Ok(42)).await.unwrap();
/// assert_eq!(length, 42);
/// let error = skillful_core::blocking::run::<(), _>("a bad call", || panic!("boom")).await;
/// assert!(error.unwrap_err().to_string().contains("a bad call panicked: boom"));
/// # });
/// ```
pub async fn run<T, F>(what: &str, work: F) -> Result<T, SkillError>
where
    F: FnOnce() -> Result<T, SkillError> + Send + 'static,
    T: Send + 'static,
{
    match tokio::task::spawn_blocking(work).await {
        Ok(result) => result,
        Err(error) if error.is_panic() => {
            let message = panic_message(error.into_panic().as_ref());
            tracing::error!("{what} panicked: {message}");
            Err(SkillError::Other(format!("{what} panicked: {message}")))
        }
        Err(error) => Err(SkillError::Other(format!(
            "{what} was cancelled because the runtime is shutting down: {error}"
        ))),
    }
}

/// The message a panic carried, when it is text.
pub fn panic_message(payload: &(dyn Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|text| (*text).to_owned())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "(no message)".to_owned())
}

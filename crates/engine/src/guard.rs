//! [`EngineGuard`]: a model server for the duration of one command — whatever answers at the
//! default endpoint, else a running engine, else an engine started for the command and stopped
//! after it (also on error, and on Ctrl-C, SIGTERM or SIGHUP).

use std::sync::{Arc, Mutex};

use crate::EngineError;
use crate::catalogue::Model;
use crate::engine::{Engine, RunningEngine, StartOptions, reusable};
use crate::process::{EngineRecord, Probe, listener_owners, probe};

/// Which server a command talks to.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Serving {
    /// The server that answers at the default endpoint.
    Default(String),
    /// An engine that was already running.
    Running(EngineRecord),
    /// An engine started for this command; it stops with the guard.
    Started(EngineRecord),
}

/// Keeps the model server of one command; an engine it started stops when it is dropped, and
/// when the process gets SIGINT, SIGTERM or SIGHUP (the engine is stopped, then the process
/// ends as the signal asks).
///
/// # Example
/// ```no_run
/// use skillful_engine::{Engine, EngineGuard, model, DEFAULT_MODEL};
///
/// # async fn demo() -> Result<(), skillful_engine::EngineError> {
/// let engine = Engine::from_env()?;
/// let guard = EngineGuard::ensure(&engine, "http://127.0.0.1:1234/v1", model(DEFAULT_MODEL)?).await?;
/// if let Some(note) = guard.note() {
///     eprintln!("{note}");
/// }
/// let endpoint = guard.endpoint(); // talk to the model here
/// drop(guard); // an engine started for this command stops
/// # Ok(())
/// # }
/// ```
#[derive(Debug)]
pub struct EngineGuard {
    serving: Serving,
    default_endpoint: String,
    engine: Arc<Mutex<Option<RunningEngine>>>,
    #[cfg(unix)]
    signals: Option<(signal_hook::iterator::Handle, std::thread::JoinHandle<()>)>,
}

impl EngineGuard {
    /// The server at `default_endpoint` when anything answers there (`GET {default}/models`),
    /// unless (on Linux) its listening socket on a loopback address belongs to another user;
    /// else the first engine of `engine`'s state directory that runs to be shared and answers;
    /// else `model` started on a free port for as long as the guard lives.
    ///
    /// The guard never carries credentials: a host sends its API key only to an endpoint the
    /// user named, never to the one this picks.
    ///
    /// # Errors
    /// [`EngineError::ForeignListener`] for another user's server at the default endpoint;
    /// installing or starting the engine failed (see [`Engine::start`]).
    pub async fn ensure(
        engine: &Engine,
        default_endpoint: &str,
        model: &'static Model,
    ) -> Result<Self, EngineError> {
        let default_endpoint = default_endpoint.trim_end_matches('/').to_owned();
        let guard = |serving, running| Self {
            serving,
            default_endpoint: default_endpoint.clone(),
            engine: Arc::new(Mutex::new(running)),
            #[cfg(unix)]
            signals: None,
        };
        if matches!(
            probe(&format!("{default_endpoint}/models")).await,
            Probe::Http { .. }
        ) {
            refuse_foreign_listener(&default_endpoint)?;
            return Ok(guard(Serving::Default(default_endpoint.clone()), None));
        }
        for record in engine.running()? {
            if reusable(&record).await {
                return Ok(guard(Serving::Running(record), None));
            }
        }
        let running = engine.start(&StartOptions::new(model).temporary()).await?;
        let mut this = guard(Serving::Started(running.record().clone()), Some(running));
        this.stop_on_signals();
        Ok(this)
    }

    /// Which server it is.
    pub fn serving(&self) -> &Serving {
        &self.serving
    }

    /// The base URL to send chat requests to.
    pub fn endpoint(&self) -> String {
        match &self.serving {
            Serving::Default(endpoint) => endpoint.clone(),
            Serving::Running(record) | Serving::Started(record) => record.endpoint(),
        }
    }

    /// One line telling the user which engine serves the command; `None` for the default
    /// endpoint.
    pub fn note(&self) -> Option<String> {
        let nothing = format!("nothing answers at {}", self.default_endpoint);
        match &self.serving {
            Serving::Default(_) => None,
            Serving::Running(record) => Some(format!(
                "{nothing}; using the running engine at {} (model {}, pid {})",
                record.endpoint(),
                record.model,
                record.pid
            )),
            Serving::Started(record) => Some(format!(
                "{nothing}; started the embedded engine at {} (model {}) for this command; it \
                 stops when the command ends",
                record.endpoint(),
                record.model
            )),
        }
    }

    #[cfg(unix)]
    fn stop_on_signals(&mut self) {
        use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
        let Ok(mut signals) = signal_hook::iterator::Signals::new([SIGINT, SIGTERM, SIGHUP]) else {
            // Without the handlers the signal still ends the process; the engine's record then
            // names a dead owner and the next `skills engine status` or `stop` finds it.
            return;
        };
        let handle = signals.handle();
        let engine = Arc::clone(&self.engine);
        let thread = std::thread::spawn(move || {
            if let Some(signal) = signals.forever().next() {
                let running = engine
                    .lock()
                    .unwrap_or_else(|poison| poison.into_inner())
                    .take();
                drop(running);
                let _ = signal_hook::low_level::emulate_default_handler(signal);
            }
        });
        self.signals = Some((handle, thread));
    }

    #[cfg(not(unix))]
    fn stop_on_signals(&mut self) {
        // On Windows, Ctrl-C reaches every process of the console, the engine included.
    }
}

/// Refuses `endpoint` when it is on a loopback address and another user's socket listens on its
/// port (a squatter on the default port would otherwise receive the conversation).
fn refuse_foreign_listener(endpoint: &str) -> Result<(), EngineError> {
    let Ok(url) = reqwest::Url::parse(endpoint) else {
        return Ok(());
    };
    let host = url.host_str().unwrap_or_default();
    let host = host.trim_start_matches('[').trim_end_matches(']');
    let loopback = host.eq_ignore_ascii_case("localhost")
        || host
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback());
    let (true, Some(port)) = (loopback, url.port_or_known_default()) else {
        return Ok(());
    };
    #[cfg(unix)]
    let me = skillful_state::current_uid();
    #[cfg(not(unix))]
    let me = 0;
    match listener_owners(port).into_iter().find(|uid| *uid != me) {
        Some(uid) => Err(EngineError::ForeignListener {
            endpoint: skillful_http::redact_url(endpoint),
            uid,
        }),
        None => Ok(()),
    }
}

impl Drop for EngineGuard {
    fn drop(&mut self) {
        #[cfg(unix)]
        if let Some((handle, thread)) = self.signals.take() {
            handle.close();
            let _ = thread.join();
        }
        let running = self
            .engine
            .lock()
            .unwrap_or_else(|poison| poison.into_inner())
            .take();
        drop(running);
    }
}

//! The one HTTP client set-up of skillful: the chat client, the MCP client and the engine's
//! downloads all start from [`client_builder`].
//!
//! reqwest is built without a crypto provider of its own (none of its built-in providers is
//! `ring`, and aws-lc needs a C toolchain), so every client is handed a rustls configuration on
//! `ring` that trusts Mozilla's roots (`webpki-roots`) and the roots the system trusts (so that a
//! proxy with its own certificate authority, as companies run, works too).
//!
//! [`redact_url`] is the one rule for showing a URL (errors, `Debug`, logs): without userinfo,
//! query string or fragment, where credentials travel.
//!
//! It knows HTTP clients, not what they are used for.
//!
//! # Example
//! ```
//! let client = skillful_http::client_builder().unwrap().build().unwrap();
//! # let _ = client;
//! ```

#![forbid(unsafe_code)]

use std::sync::{Arc, OnceLock};

mod redact;

pub use redact::redact_url;

/// Why the TLS configuration could not be made.
#[derive(Debug, Clone, thiserror::Error)]
#[error("cannot set up TLS: {0}")]
pub struct TlsError(String);

/// A reqwest client builder with the workspace's TLS configuration.
///
/// # Errors
/// [`TlsError`] when rustls refuses its own default protocol versions (it never has).
pub fn client_builder() -> Result<reqwest::ClientBuilder, TlsError> {
    Ok(reqwest::Client::builder().tls_backend_preconfigured(tls_config()?))
}

/// The rustls configuration: `ring`, safe default protocol versions, Mozilla's and the system's
/// roots. The system's roots are read once per process.
///
/// # Errors
/// As [`client_builder`].
pub fn tls_config() -> Result<rustls::ClientConfig, TlsError> {
    let roots = roots().clone();
    Ok(rustls::ClientConfig::builder_with_provider(Arc::new(
        rustls::crypto::ring::default_provider(),
    ))
    .with_safe_default_protocol_versions()
    .map_err(|error| TlsError(error.to_string()))?
    .with_root_certificates(roots)
    .with_no_client_auth())
}

fn roots() -> &'static rustls::RootCertStore {
    static ROOTS: OnceLock<rustls::RootCertStore> = OnceLock::new();
    ROOTS.get_or_init(|| {
        let mut roots = rustls::RootCertStore {
            roots: webpki_roots::TLS_SERVER_ROOTS.to_vec(),
        };
        let native = rustls_native_certs::load_native_certs();
        for error in &native.errors {
            tracing::debug!("a system root certificate could not be read: {error}");
        }
        let (added, ignored) = roots.add_parsable_certificates(native.certs);
        tracing::debug!("{added} system root certificates trusted, {ignored} unusable");
        roots
    })
}

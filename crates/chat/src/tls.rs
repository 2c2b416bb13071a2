//! TLS for the HTTP client: rustls on `ring` (no aws-lc, no C toolchain), Mozilla's roots.

use std::sync::Arc;

/// A rustls client configuration on the `ring` provider trusting `webpki-roots`.
///
/// reqwest is built without a crypto provider of its own (the workspace shares one reqwest, and
/// none of its built-in providers is `ring`), so every client is handed this configuration.
pub(crate) fn client_config() -> Result<rustls::ClientConfig, rustls::Error> {
    let roots = rustls::RootCertStore {
        roots: webpki_roots::TLS_SERVER_ROOTS.to_vec(),
    };
    Ok(rustls::ClientConfig::builder_with_provider(Arc::new(
        rustls::crypto::ring::default_provider(),
    ))
    .with_safe_default_protocol_versions()?
    .with_root_certificates(roots)
    .with_no_client_auth())
}

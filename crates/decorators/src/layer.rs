//! The `Layer` trait: how a decorator wraps a client.

/// Wraps a client in a decorator, as tower's `Layer` does: the layer holds the configuration,
/// [`Layer::layer`] builds the decorated client.
///
/// Layers applied first sit closest to the model; the last one applied sees the caller's request
/// first.
pub trait Layer<C> {
    /// The decorated client.
    type Client;

    /// Wraps `inner`.
    fn layer(&self, inner: C) -> Self::Client;
}

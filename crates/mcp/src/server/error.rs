//! Why serving stopped: [`ServeError`].

use std::net::SocketAddr;

/// Why serving stopped.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ServeError {
    /// The client's handshake failed.
    #[error("the MCP handshake failed: {0}")]
    Handshake(String),
    /// The connection or the listener failed.
    #[error("serving MCP failed: {0}")]
    Io(#[from] std::io::Error),
    /// The session ended abnormally.
    #[error("the MCP session ended abnormally: {0}")]
    Session(String),
    /// An address other hosts can reach was to be served without a bearer token.
    #[error(
        "{addr} is not a loopback address: every host that can reach it could read the skills, so serving it needs a bearer token (SkillsMcpServer::with_bearer_token); or serve 127.0.0.1"
    )]
    TokenRequired {
        /// The address.
        addr: SocketAddr,
    },
}

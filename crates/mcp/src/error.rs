use std::path::PathBuf;

/// Why talking to an MCP server failed, or why a source could not be built.
///
/// A server that answers a request with an error is [`McpSkillsError::Server`]; a connection
/// that could not be made or broke is [`McpSkillsError::Connect`] or
/// [`McpSkillsError::Transport`]. After a transport failure the next call connects afresh, so
/// one failure never poisons the calls that follow.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum McpSkillsError {
    /// The server could not be reached or refused the MCP handshake.
    #[error("cannot connect to MCP server {server}: {message}")]
    Connect {
        /// The server: its command line or URL.
        server: String,
        /// What went wrong.
        message: String,
    },
    /// The connection failed while a request was under way (closed, timed out, not sent).
    #[error("MCP server {server} failed while reading {uri}: {message}; the next call reconnects")]
    Transport {
        /// The server: its command line or URL.
        server: String,
        /// The resource being read.
        uri: String,
        /// What went wrong.
        message: String,
    },
    /// The server answered the request with an error.
    #[error("MCP server {server} refused to read {uri}: {message} (code {code})")]
    Server {
        /// The server: its command line or URL.
        server: String,
        /// The resource asked for.
        uri: String,
        /// The JSON-RPC error code.
        code: i32,
        /// The server's message.
        message: String,
    },
    /// The server answered, but not with what the resource must hold.
    #[error("MCP server {server} sent unusable content for {uri}: {message}")]
    Content {
        /// The server: its command line or URL.
        server: String,
        /// The resource read.
        uri: String,
        /// What is wrong with it.
        message: String,
    },
    /// The command line of a stdio server is empty or badly quoted.
    #[error("invalid MCP server command {command:?}: {message}")]
    Command {
        /// The command line given.
        command: String,
        /// What is wrong with it.
        message: String,
    },
    /// A request of the Skills extension's final form failed, or what it fetched failed
    /// verification (the content is then not used).
    #[error(transparent)]
    Protocol(#[from] crate::final_form::FinalFormError),
    /// The directory MCP content is kept in cannot be used (a symbolic link, another user's).
    #[error("cannot use the cache directory for MCP skills: {0}")]
    CacheDir(#[from] skillful_state::StateError),
    /// The extraction directory for archive skills cannot be used.
    #[error("cannot use the archive extraction directory {}: {source}", path.display())]
    ExtractionDir {
        /// The directory.
        path: PathBuf,
        /// What the operating system said.
        #[source]
        source: std::io::Error,
    },
}

//! MCP servers as a host names them (feature `mcp`): the label rules, the default labels, and the
//! pairing of labels and bearer tokens with the servers they were given for.

use std::fmt;

use skillful_mcp::{BearerToken, McpEndpoint, McpSkillsError, TokenError};

/// The label an MCP server goes by in messages, listings and disambiguated names
/// (`label:name`): a word without `:`, `/`, whitespace or control characters, checked once, at
/// construction.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct McpLabel(String);

impl McpLabel {
    /// `label`, checked.
    ///
    /// # Errors
    /// [`McpError::InvalidLabel`]: it is empty or holds `:`, `/`, whitespace or a control
    /// character.
    pub fn new(label: impl Into<String>) -> Result<Self, McpError> {
        let label = label.into();
        let bad = |c: char| c == ':' || c == '/' || c.is_whitespace() || c.is_control();
        if label.is_empty() || label.chars().any(bad) {
            return Err(McpError::InvalidLabel { label });
        }
        Ok(Self(label))
    }

    /// The label's text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for McpLabel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl From<McpLabel> for String {
    fn from(label: McpLabel) -> Self {
        label.0
    }
}

/// Why MCP servers could not be named as asked.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum McpError {
    /// A label breaks [`McpLabel`]'s rule.
    #[error("MCP server label '{}' is invalid: the name must be a word without ':' or '/'", label.escape_debug())]
    InvalidLabel {
        /// The label as given.
        label: String,
    },
    /// A label or token names a server that was not given.
    #[error("no MCP server was given as `{server}`; name it exactly as given")]
    UnknownServer {
        /// The server as named.
        server: String,
    },
    /// A bearer token names a server reached over stdio.
    #[error("`{server}` is not an HTTP server; bearer tokens go to HTTP servers only")]
    NotHttp {
        /// The server as named.
        server: String,
    },
    /// The variable named for a bearer token holds none that can be used.
    #[error(transparent)]
    Token(#[from] TokenError),
    /// A stdio command line could not be read.
    #[error(transparent)]
    Endpoint(#[from] McpSkillsError),
}

/// An MCP server to read skills from, under a label the host chose.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct McpServer {
    /// The label: how messages, listings and disambiguated names (`label:name`) call it.
    pub label: McpLabel,
    /// How to reach it.
    pub endpoint: McpEndpoint,
    /// Variables of the host's environment a stdio server may also see (beyond the scripts'
    /// allow-list).
    pub env: Vec<String>,
}

impl McpServer {
    /// The server at `endpoint`, called `label`.
    ///
    /// # Errors
    /// [`McpError::InvalidLabel`]: `label` breaks [`McpLabel`]'s rule.
    pub fn new(label: impl Into<String>, endpoint: McpEndpoint) -> Result<Self, McpError> {
        Ok(Self::labelled(McpLabel::new(label)?, endpoint))
    }

    /// The server at `endpoint`, called `label` (already checked).
    pub fn labelled(label: McpLabel, endpoint: McpEndpoint) -> Self {
        Self {
            label,
            endpoint,
            env: Vec::new(),
        }
    }

    /// The same server, its child process also seeing the host's variable `name`.
    pub fn allow_env(mut self, name: impl Into<String>) -> Self {
        self.env.push(name.into());
        self
    }
}

/// MCP servers named the way a command line names them: each by the text it was given as (a
/// stdio command line, an HTTP URL), in order; a label or bearer token given for one names it by
/// that text. A server without a label is `mcp1`, `mcp2`, ... by its position.
#[derive(Debug, Default)]
#[must_use]
pub struct McpServers {
    given: Vec<Given>,
    env: Vec<String>,
}

#[derive(Debug)]
struct Given {
    text: String,
    endpoint: McpEndpoint,
    http: bool,
    label: Option<McpLabel>,
    token: Option<BearerToken>,
}

impl McpServers {
    /// No servers.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds the server this command line starts (spoken to over its stdin and stdout).
    ///
    /// # Errors
    /// [`McpError::Endpoint`]: the command line cannot be read.
    pub fn stdio(mut self, command_line: &str) -> Result<Self, McpError> {
        let endpoint = McpEndpoint::command_line(command_line)?;
        self.given.push(Given {
            text: command_line.to_owned(),
            endpoint,
            http: false,
            label: None,
            token: None,
        });
        Ok(self)
    }

    /// Adds the server at this streamable HTTP URL.
    pub fn http(mut self, url: &str) -> Self {
        self.given.push(Given {
            text: url.to_owned(),
            endpoint: McpEndpoint::http(url),
            http: true,
            label: None,
            token: None,
        });
        self
    }

    /// Calls the server given as `server` `label`.
    ///
    /// # Errors
    /// [`McpError::InvalidLabel`], or [`McpError::UnknownServer`]: no server was given as
    /// `server`.
    pub fn label(mut self, label: &str, server: &str) -> Result<Self, McpError> {
        let label = McpLabel::new(label)?;
        self.named(server)?.label = Some(label);
        Ok(self)
    }

    /// Sends the bearer token the host's environment variable `var` holds with every request to
    /// the HTTP server given as `server`.
    ///
    /// # Errors
    /// [`McpError::UnknownServer`]; [`McpError::NotHttp`]: `server` was given as a stdio command
    /// line; [`McpError::Token`]: `var` holds no usable token (checked after the server).
    pub fn bearer_token_env(mut self, server: &str, var: &str) -> Result<Self, McpError> {
        let given = self.named(server)?;
        if !given.http {
            return Err(McpError::NotHttp {
                server: server.to_owned(),
            });
        }
        given.token = Some(BearerToken::from_env(var)?);
        Ok(self)
    }

    /// Lets every stdio server inherit the host's variable `name`.
    pub fn allow_env(mut self, name: impl Into<String>) -> Self {
        self.env.push(name.into());
        self
    }

    fn named(&mut self, server: &str) -> Result<&mut Given, McpError> {
        self.given
            .iter_mut()
            .find(|given| given.text == server)
            .ok_or_else(|| McpError::UnknownServer {
                server: server.to_owned(),
            })
    }

    /// The servers, in the order given, each with its label (or its default one) and token.
    pub fn build(self) -> Vec<McpServer> {
        self.given
            .into_iter()
            .enumerate()
            .map(|(index, given)| {
                let label = given
                    .label
                    .unwrap_or_else(|| McpLabel(format!("mcp{}", index + 1)));
                let endpoint = match given.token {
                    Some(token) => McpEndpoint::http_with_bearer_token(&given.text, token),
                    None => given.endpoint,
                };
                let server = McpServer::labelled(label, endpoint);
                self.env
                    .iter()
                    .fold(server, |server, name| server.allow_env(name.clone()))
            })
            .collect()
    }
}

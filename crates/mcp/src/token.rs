//! The bearer token of the HTTP transport: what a server requires of every request
//! ([`SkillsMcpServer::with_bearer_token`](crate::SkillsMcpServer::with_bearer_token), feature
//! `server`) and what a client sends with each
//! ([`McpEndpoint::http_with_bearer_token`](crate::McpEndpoint::http_with_bearer_token),
//! feature `client`).

use std::fmt;
use std::sync::Arc;

use subtle::ConstantTimeEq;

use crate::final_form::sha256_digest;

/// Why a bearer token was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum TokenError {
    /// A token that is empty, or holds characters a header value cannot carry.
    #[error("the bearer token is empty, or holds spaces or characters other than printable ASCII")]
    Unusable,
    /// A token shorter than [`MIN_TOKEN_BYTES`]: few enough guesses to try them all.
    #[error(
        "the bearer token is {len} bytes long; use at least {MIN_TOKEN_BYTES} random characters (e.g. `openssl rand -hex 16`)"
    )]
    TooShort {
        /// Its length in bytes.
        len: usize,
    },
    /// The environment variable meant to hold the token does not hold a usable one.
    #[error("the environment variable {var} holds no bearer token: {reason}")]
    Variable {
        /// The variable's name.
        var: String,
        /// What is wrong with it.
        reason: String,
    },
}

/// The shortest bearer token accepted, in bytes (16 random hexadecimal digits are 64 bits).
pub const MIN_TOKEN_BYTES: usize = 16;

/// The secret sent as `Authorization: Bearer <token>`. Its `Debug` never shows it, and two
/// tokens compare equal in constant time.
#[derive(Clone)]
pub struct BearerToken {
    secret: Arc<str>,
    /// What a presented secret is compared with: comparing digests takes the same time
    /// whatever the length or content of what a client sends.
    digest: Arc<str>,
}

impl fmt::Debug for BearerToken {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("BearerToken(..)")
    }
}

impl PartialEq for BearerToken {
    fn eq(&self, other: &Self) -> bool {
        self.admits(&other.secret)
    }
}

impl Eq for BearerToken {}

impl BearerToken {
    /// The token `secret`.
    ///
    /// # Errors
    /// [`TokenError::Unusable`] when `secret` is empty or only whitespace (a client could send
    /// it without knowing anything), or holds characters a header value cannot carry;
    /// [`TokenError::TooShort`] when it is shorter than [`MIN_TOKEN_BYTES`].
    pub fn new(secret: &str) -> Result<Self, TokenError> {
        let usable = !secret.trim().is_empty()
            && secret.trim() == secret
            && secret.bytes().all(|byte| byte.is_ascii_graphic());
        if !usable {
            return Err(TokenError::Unusable);
        }
        if secret.len() < MIN_TOKEN_BYTES {
            return Err(TokenError::TooShort { len: secret.len() });
        }
        Ok(Self {
            secret: Arc::from(secret),
            digest: Arc::from(sha256_digest(secret.as_bytes())),
        })
    }

    /// The token held by the environment variable `var`.
    ///
    /// # Errors
    /// [`TokenError::Variable`] naming `var` when it is not set, not Unicode, empty, or not
    /// usable as a token.
    ///
    /// # Example
    /// ```
    /// use skillful_mcp::BearerToken;
    ///
    /// let error = BearerToken::from_env("SKILLFUL_DOC_EXAMPLE_UNSET").unwrap_err();
    /// assert!(error.to_string().contains("SKILLFUL_DOC_EXAMPLE_UNSET"));
    /// ```
    pub fn from_env(var: &str) -> Result<Self, TokenError> {
        let invalid = |reason: &str| TokenError::Variable {
            var: var.to_owned(),
            reason: reason.to_owned(),
        };
        let secret = std::env::var(var).map_err(|error| match error {
            std::env::VarError::NotPresent => invalid("it is not set"),
            std::env::VarError::NotUnicode(_) => invalid("it is not valid Unicode"),
        })?;
        Self::new(&secret).map_err(|error| invalid(&error.to_string()))
    }

    /// Whether `presented` is this token's secret. Compared in constant time.
    pub(crate) fn admits(&self, presented: &str) -> bool {
        let presented = sha256_digest(presented.as_bytes());
        bool::from(presented.as_bytes().ct_eq(self.digest.as_bytes()))
    }

    /// The secret, to send.
    #[cfg_attr(not(feature = "client"), allow(dead_code))]
    pub(crate) fn secret(&self) -> &str {
        &self.secret
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_or_unsendable_tokens_are_refused() {
        for bad in ["", "   ", " padded", "with space", "tab\there", "é"] {
            assert_eq!(
                BearerToken::new(bad).unwrap_err(),
                TokenError::Unusable,
                "{bad:?}"
            );
        }
    }

    #[test]
    fn a_token_under_sixteen_bytes_is_refused() {
        for short in ["t", "s3cret", "fifteen-bytes!!"] {
            assert_eq!(
                BearerToken::new(short).unwrap_err(),
                TokenError::TooShort { len: short.len() },
                "{short:?}"
            );
        }
        assert!(BearerToken::new("sixteen-bytes!!!").is_ok());
    }

    #[test]
    fn a_token_is_never_shown_and_equals_only_its_own_secret() {
        let token = BearerToken::new("s3cret-s3cret-s3cret").unwrap();
        assert_eq!(format!("{token:?}"), "BearerToken(..)");
        assert_eq!(token, BearerToken::new("s3cret-s3cret-s3cret").unwrap());
        assert_ne!(token, BearerToken::new("s3cret-s3cret-s3cre").unwrap());
        assert_eq!(token.secret(), "s3cret-s3cret-s3cret");
    }
}

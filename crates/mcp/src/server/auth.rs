//! Bearer-token authentication of the HTTP server: what lets it serve an address other hosts can
//! reach.

use std::fmt;
use std::net::SocketAddr;

use axum::extract::{Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use subtle::ConstantTimeEq;

use super::ServeError;
use crate::final_form::sha256_digest;

/// The secret every HTTP request must carry as `Authorization: Bearer <token>` (see
/// [`SkillsMcpServer::with_bearer_token`](super::SkillsMcpServer::with_bearer_token)). Its
/// `Debug` never shows the secret.
#[derive(Clone)]
pub struct BearerToken {
    /// Only the digest is kept: comparing digests takes the same time whatever the length or
    /// content of what a client sends.
    digest: String,
}

impl fmt::Debug for BearerToken {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("BearerToken(..)")
    }
}

impl BearerToken {
    /// The token `secret`.
    ///
    /// # Errors
    /// [`ServeError::EmptyToken`] when `secret` is empty or only whitespace (a client could
    /// send it without knowing anything), or holds characters a header value cannot carry.
    pub fn new(secret: &str) -> Result<Self, ServeError> {
        let usable = !secret.trim().is_empty()
            && secret.trim() == secret
            && secret.bytes().all(|byte| byte.is_ascii_graphic());
        if !usable {
            return Err(ServeError::EmptyToken);
        }
        Ok(Self {
            digest: sha256_digest(secret.as_bytes()),
        })
    }

    /// The token held by the environment variable `var`.
    ///
    /// # Errors
    /// [`ServeError::TokenVariable`] naming `var` when it is not set, not Unicode, empty, or
    /// not usable as a token.
    ///
    /// # Example
    /// ```
    /// use skillful_mcp::BearerToken;
    ///
    /// let error = BearerToken::from_env("SKILLFUL_DOC_EXAMPLE_UNSET").unwrap_err();
    /// assert!(error.to_string().contains("SKILLFUL_DOC_EXAMPLE_UNSET"));
    /// ```
    pub fn from_env(var: &str) -> Result<Self, ServeError> {
        let invalid = |reason: &str| ServeError::TokenVariable {
            var: var.to_owned(),
            reason: reason.to_owned(),
        };
        let secret = std::env::var(var).map_err(|error| match error {
            std::env::VarError::NotPresent => invalid("it is not set"),
            std::env::VarError::NotUnicode(_) => invalid("it is not valid Unicode"),
        })?;
        Self::new(&secret).map_err(|_| {
            invalid("it is empty, or holds spaces or characters other than printable ASCII")
        })
    }

    /// Whether the value of an `Authorization` header presents this token (scheme `Bearer`,
    /// any case). Compared in constant time.
    fn admits(&self, authorization: &HeaderValue) -> bool {
        let Some((scheme, presented)) = authorization
            .to_str()
            .ok()
            .and_then(|value| value.split_once(' '))
        else {
            return false;
        };
        let presented = sha256_digest(presented.as_bytes());
        scheme.eq_ignore_ascii_case("bearer")
            && bool::from(presented.as_bytes().ct_eq(self.digest.as_bytes()))
    }
}

/// Refuses to serve `addr` when other hosts can reach it and no token guards it.
pub(super) fn check_exposure(
    addr: SocketAddr,
    token: Option<&BearerToken>,
) -> Result<(), ServeError> {
    if token.is_none() && !addr.ip().is_loopback() {
        return Err(ServeError::TokenRequired { addr });
    }
    Ok(())
}

/// Answers 401 (with `WWW-Authenticate: Bearer`) a request that does not present the token.
pub(super) async fn require_token(
    State(token): State<BearerToken>,
    request: Request,
    next: Next,
) -> Response {
    let challenge = match request.headers().get(header::AUTHORIZATION) {
        Some(value) if token.admits(value) => return next.run(request).await,
        Some(_) => r#"Bearer error="invalid_token""#,
        None => "Bearer",
    };
    (
        StatusCode::UNAUTHORIZED,
        [(header::WWW_AUTHENTICATE, challenge)],
        "a bearer token is required: send `Authorization: Bearer <token>`\n",
    )
        .into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_exact_token_with_the_bearer_scheme_is_admitted() {
        let token = BearerToken::new("s3cret").unwrap();
        let admits = |value: &str| token.admits(&HeaderValue::from_str(value).unwrap());
        assert!(admits("Bearer s3cret"));
        assert!(admits("bearer s3cret"));
        for refused in [
            "Bearer s3cre",
            "Bearer s3crett",
            "Bearer  s3cret",
            "Basic s3cret",
            "s3cret",
            "Bearer",
            "",
        ] {
            assert!(!admits(refused), "{refused:?}");
        }
        assert_eq!(format!("{token:?}"), "BearerToken(..)");
    }

    #[test]
    fn empty_or_unsendable_tokens_are_refused() {
        for bad in ["", "   ", " padded", "with space", "tab\there", "é"] {
            assert!(BearerToken::new(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn only_loopback_may_be_served_without_a_token() {
        let token = BearerToken::new("t").unwrap();
        for open in ["127.0.0.1:1", "[::1]:1", "127.0.0.2:1"] {
            assert!(
                check_exposure(open.parse().unwrap(), None).is_ok(),
                "{open}"
            );
        }
        for exposed in ["0.0.0.0:1", "[::]:1", "192.168.1.4:1"] {
            let addr: SocketAddr = exposed.parse().unwrap();
            let error = check_exposure(addr, None).unwrap_err();
            assert!(error.to_string().contains(exposed), "{error}");
            assert!(check_exposure(addr, Some(&token)).is_ok());
        }
    }
}

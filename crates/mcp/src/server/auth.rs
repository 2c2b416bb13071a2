//! Bearer-token authentication of the HTTP server: what lets it serve an address other hosts can
//! reach.

use std::net::SocketAddr;

use super::error::ServeError;
use crate::BearerToken;
use axum::extract::{Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

/// Whether the value of an `Authorization` header presents `token` (scheme `Bearer`, any case).
/// Compared in constant time.
fn admits(token: &BearerToken, authorization: &HeaderValue) -> bool {
    let Some((scheme, presented)) = authorization
        .to_str()
        .ok()
        .and_then(|value| value.split_once(' '))
    else {
        return false;
    };
    // Both sides are compared, so that a wrong scheme takes as long as a wrong token.
    let presents = token.admits(presented);
    scheme.eq_ignore_ascii_case("bearer") && presents
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
        Some(value) if admits(&token, value) => return next.run(request).await,
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
        let token = BearerToken::new("s3cret-s3cret-s3cret").unwrap();
        let admits = |value: &str| admits(&token, &HeaderValue::from_str(value).unwrap());
        assert!(admits("Bearer s3cret-s3cret-s3cret"));
        assert!(admits("bearer s3cret-s3cret-s3cret"));
        for refused in [
            "Bearer s3cret-s3cret-s3cre",
            "Bearer s3cret-s3cret-s3crett",
            "Bearer  s3cret-s3cret-s3cret",
            "Basic s3cret-s3cret-s3cret",
            "s3cret-s3cret-s3cret",
            "Bearer",
            "",
        ] {
            assert!(!admits(refused), "{refused:?}");
        }
    }

    #[test]
    fn only_loopback_may_be_served_without_a_token() {
        let token = BearerToken::new("t-t-t-t-t-t-t-t-t").unwrap();
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

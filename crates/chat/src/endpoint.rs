//! The endpoint a client posts to: the completions URL built from the base URL, how it is shown,
//! and whether credentials may travel to it.

use std::net::{IpAddr, Ipv6Addr};

use reqwest::Url;

use crate::error::ChatError;
use skillful_http::redact_url;

/// Checks that `base` is a base URL a client can post to (`http://` or `https://`, with a
/// host), as [`OpenAiClient`](crate::OpenAiClient) checks it when built: for a command line to
/// refuse a malformed `--endpoint` as a usage error before anything starts.
///
/// # Errors
/// [`ChatError::InvalidUrl`], saying what is wrong.
///
/// ```
/// assert!(skillful_chat::check_base_url("http://127.0.0.1:1234/v1").is_ok());
/// assert!(skillful_chat::check_base_url("127.0.0.1:1234").is_err());
/// ```
pub fn check_base_url(base: &str) -> Result<(), ChatError> {
    Endpoint::completions(base, false).map(drop)
}

/// Where requests go, and the same URL as it may be shown.
#[derive(Clone)]
pub(crate) struct Endpoint {
    /// The URL requests are sent to, credentials and query string included.
    pub(crate) url: Url,
    /// [`redact_url`] of it: the only form that is ever printed.
    pub(crate) shown: String,
}

impl Endpoint {
    /// `{base}/chat/completions`, the path added before any query string the base carries.
    ///
    /// # Errors
    /// [`ChatError::InvalidUrl`] when `base` is no `http://` or `https://` URL;
    /// [`ChatError::InsecureCredentials`] when credentials (an API key, or userinfo in `base`)
    /// would travel over plain `http://` to a host that is not loopback.
    pub(crate) fn completions(base: &str, has_api_key: bool) -> Result<Self, ChatError> {
        let invalid = |reason: String| ChatError::InvalidUrl {
            url: redact_url(base),
            reason,
        };
        let mut url = Url::parse(base.trim()).map_err(|error| invalid(error.to_string()))?;
        if !matches!(url.scheme(), "http" | "https") {
            return Err(invalid(format!(
                "the scheme is `{}`, not http or https",
                url.scheme()
            )));
        }
        if url.host_str().is_none_or(str::is_empty) {
            return Err(invalid("it names no host".to_owned()));
        }
        url.path_segments_mut()
            .map_err(|()| invalid("it cannot have a path".to_owned()))?
            .pop_if_empty()
            .extend(["chat", "completions"]);
        let shown = redact_url(url.as_str());
        let has_userinfo = !url.username().is_empty() || url.password().is_some();
        if (has_api_key || has_userinfo) && url.scheme() == "http" && !is_loopback(&url) {
            return Err(ChatError::InsecureCredentials { url: shown });
        }
        Ok(Self { url, shown })
    }

    /// `{base}/models` beside `{base}/chat/completions`: the list of the server's models.
    pub(crate) fn models(&self) -> Self {
        let mut url = self.url.clone();
        if let Ok(mut segments) = url.path_segments_mut() {
            segments.pop().pop().push("models");
        }
        let shown = redact_url(url.as_str());
        Self { url, shown }
    }

    /// Whether the host is this machine (see [`is_loopback`]).
    pub(crate) fn is_loopback(&self) -> bool {
        is_loopback(&self.url)
    }
}

/// Whether the URL's host is this machine: `127.0.0.0/8`, `::1` (also as `::ffff:127.x.y.z`) or
/// `localhost`. Other names, even ones that resolve to loopback today, are not trusted to.
fn is_loopback(url: &Url) -> bool {
    let Some(host) = url.host_str() else {
        return false;
    };
    // The URL parser has normalised the host: IPv6 in brackets, IPv4 dotted, names lowercase.
    let address = host
        .strip_prefix('[')
        .and_then(|host| host.strip_suffix(']'))
        .unwrap_or(host);
    match address.parse::<IpAddr>() {
        Ok(IpAddr::V4(ip)) => ip.is_loopback(),
        Ok(IpAddr::V6(ip)) => ipv6_is_loopback(ip),
        Err(_) => host == "localhost",
    }
}

fn ipv6_is_loopback(ip: Ipv6Addr) -> bool {
    ip.is_loopback()
        || ip
            .to_ipv4_mapped()
            .is_some_and(|ip| IpAddr::V4(ip).is_loopback())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_path_goes_before_the_query_and_trailing_slashes_do_not_double() {
        for (base, url) in [
            (
                "http://127.0.0.1:1234/v1",
                "http://127.0.0.1:1234/v1/chat/completions",
            ),
            (
                "http://127.0.0.1:1234/v1/",
                "http://127.0.0.1:1234/v1/chat/completions",
            ),
            (
                "https://x.example/openai/v1?api-version=1",
                "https://x.example/openai/v1/chat/completions?api-version=1",
            ),
            ("http://localhost", "http://localhost/chat/completions"),
        ] {
            assert_eq!(
                Endpoint::completions(base, false).unwrap().url.as_str(),
                url
            );
        }
    }

    #[test]
    fn loopback_is_an_address_of_this_machine() {
        let loopback = |base: &str| is_loopback(&Url::parse(base).unwrap());
        assert!(loopback("http://127.0.0.1/"));
        assert!(loopback("http://127.255.0.3/"));
        assert!(loopback("http://[::1]/"));
        assert!(loopback("http://[::ffff:127.0.0.1]/"));
        assert!(loopback("http://LOCALHOST/"));
        assert!(!loopback("http://localhost.example/"));
        assert!(!loopback("http://10.0.0.1/"));
        assert!(!loopback("http://[::ffff:10.0.0.1]/"));
        assert!(!loopback("http://0.0.0.0/"));
    }
}

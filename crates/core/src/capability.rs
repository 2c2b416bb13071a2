//! Capabilities a skill declares in its `metadata`: that its scripts need the network (and which
//! hosts), or write paths under the working directory.
//!
//! A declaration is information for the person approving a call and for the model: it is shown
//! in the approval question, in `load_skill`'s output and in `skills list --json`, and it is part
//! of the skill's `SKILL.md`, so an approval given for good covers it. It never widens what a
//! script may do beyond the sandbox profile of its risk tier: a `read` script that declares the
//! network still has none.

use std::fmt;

use indexmap::IndexMap;
use serde::{Serialize, Serializer};

use crate::names::RelativeName;

/// The prefix of every capability key in `metadata`.
pub const CAPABILITY_PREFIX: &str = "capabilities.";

/// The `metadata` key declaring the network: `any`, `none`, or host names separated by commas
/// or spaces (`api.example.com, *.example.org:443`).
pub const NETWORK_KEY: &str = "capabilities.network";

/// The `metadata` key declaring writes: paths relative to the working directory, separated by
/// commas or spaces (`out/, report.md`).
pub const WRITES_KEY: &str = "capabilities.writes";

/// The network a skill declares it needs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NetworkNeed {
    /// Any host (`any`).
    Any,
    /// These hosts (each a DNS name, optionally `*.` for its subdomains, or an IPv4 address,
    /// optionally with `:PORT`), lowercase, in the order written.
    Hosts(Vec<String>),
}

impl Serialize for NetworkNeed {
    /// `"any"`, or the list of hosts.
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Self::Any => serializer.serialize_str("any"),
            Self::Hosts(hosts) => hosts.serialize(serializer),
        }
    }
}

#[cfg(feature = "schema")]
impl schemars::JsonSchema for NetworkNeed {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "NetworkNeed".into()
    }

    /// `"any"`, or the list of hosts, as it serializes.
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "description": "The network a skill declares it needs: `any`, or these hosts.",
            "oneOf": [
                { "const": "any" },
                { "type": "array", "items": { "type": "string" } }
            ]
        })
    }
}

/// What a skill declares its scripts need (see the module documentation):
///
/// ```yaml
/// metadata:
///   capabilities.network: api.example.com, *.example.org:443   # or `any`, or `none`
///   capabilities.writes: out/, report.md                       # under the working directory
/// ```
///
/// # Example
/// ```
/// use indexmap::IndexMap;
/// use skillful_core::{Capabilities, NetworkNeed};
///
/// let mut metadata = IndexMap::new();
/// metadata.insert("capabilities.network".to_owned(), "api.example.com, *.example.org:443".to_owned());
/// metadata.insert("capabilities.writes".to_owned(), "out/".to_owned());
/// let declared = Capabilities::from_metadata("fetcher", &metadata).unwrap();
/// assert_eq!(
///     declared.network,
///     Some(NetworkNeed::Hosts(vec!["api.example.com".into(), "*.example.org:443".into()]))
/// );
/// assert_eq!(declared.writes, ["out"]);
/// assert_eq!(declared.to_string(), "network: api.example.com, *.example.org:443 · writes: out");
///
/// metadata.insert("capabilities.network".to_owned(), "http://example.com".to_owned());
/// let error = Capabilities::from_metadata("fetcher", &metadata).unwrap_err();
/// assert!(error.to_string().starts_with("skill 'fetcher': metadata.capabilities.network: `http://example.com`"));
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[non_exhaustive]
pub struct Capabilities {
    /// The network, when declared (`none` declares nothing).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub network: Option<NetworkNeed>,
    /// Paths under the working directory the scripts write, `/` between segments, without a
    /// trailing `/`.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub writes: Vec<String>,
}

/// A capability declaration that cannot be read; the skill then declares nothing.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum CapabilityError {
    /// A `capabilities.` key that is not a capability.
    #[error(
        "skill '{skill}': metadata.{key}: not a capability; declare `{NETWORK_KEY}` or \
         `{WRITES_KEY}`"
    )]
    UnknownKey {
        /// The skill's name.
        skill: String,
        /// The key as written.
        key: String,
    },
    /// A key with no value.
    #[error(
        "skill '{skill}': metadata.{key}: empty; remove the key, or write what the scripts need"
    )]
    Empty {
        /// The skill's name.
        skill: String,
        /// The key.
        key: String,
    },
    /// A host that is not a host name.
    #[error(
        "skill '{skill}': metadata.{NETWORK_KEY}: `{host}` is not a host name; write `any`, \
         `none`, or host names separated by commas (`api.example.com, *.example.org:443`)"
    )]
    BadHost {
        /// The skill's name.
        skill: String,
        /// The host as written.
        host: String,
    },
    /// A path that is not a plain relative path.
    #[error(
        "skill '{skill}': metadata.{WRITES_KEY}: `{path}` {reason}; write paths relative to the \
         working directory separated by commas (`out/, report.md`)"
    )]
    BadPath {
        /// The skill's name.
        skill: String,
        /// The path as written.
        path: String,
        /// Why it is refused.
        reason: String,
    },
}

impl CapabilityError {
    /// The `metadata` key the error is about (`capabilities.network`).
    pub fn key(&self) -> &str {
        match self {
            Self::UnknownKey { key, .. } | Self::Empty { key, .. } => key,
            Self::BadHost { .. } => NETWORK_KEY,
            Self::BadPath { .. } => WRITES_KEY,
        }
    }
}

impl Capabilities {
    /// Reads the capabilities the skill `skill` declares in `metadata`.
    ///
    /// # Errors
    /// The first [`CapabilityError`]: an unknown `capabilities.` key, an empty value, a host
    /// that is not one, or a write path that is absolute or leaves the working directory.
    pub fn from_metadata(
        skill: &str,
        metadata: &IndexMap<String, String>,
    ) -> Result<Self, CapabilityError> {
        let mut declared = Self::default();
        for (key, value) in metadata {
            if !key.starts_with(CAPABILITY_PREFIX) {
                continue;
            }
            let items: Vec<&str> = value
                .split(|c: char| c == ',' || c.is_whitespace())
                .filter(|item| !item.is_empty())
                .collect();
            if items.is_empty() {
                return Err(CapabilityError::Empty {
                    skill: skill.to_owned(),
                    key: key.clone(),
                });
            }
            match key.as_str() {
                NETWORK_KEY => declared.network = network(skill, &items)?,
                WRITES_KEY => {
                    declared.writes = items
                        .into_iter()
                        .map(|path| write_path(skill, path))
                        .collect::<Result<_, _>>()?;
                }
                _ => {
                    return Err(CapabilityError::UnknownKey {
                        skill: skill.to_owned(),
                        key: key.clone(),
                    });
                }
            }
        }
        Ok(declared)
    }

    /// Whether nothing is declared.
    pub fn is_empty(&self) -> bool {
        self.network.is_none() && self.writes.is_empty()
    }
}

impl fmt::Display for Capabilities {
    /// `network: any host · writes: out, report.md`; empty when nothing is declared.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut parts = Vec::new();
        match &self.network {
            Some(NetworkNeed::Any) => parts.push("network: any host".to_owned()),
            Some(NetworkNeed::Hosts(hosts)) => parts.push(format!("network: {}", hosts.join(", "))),
            None => {}
        }
        if !self.writes.is_empty() {
            parts.push(format!("writes: {}", self.writes.join(", ")));
        }
        f.write_str(&parts.join(" · "))
    }
}

fn network(skill: &str, items: &[&str]) -> Result<Option<NetworkNeed>, CapabilityError> {
    match items {
        [word] if word.eq_ignore_ascii_case("none") => return Ok(None),
        [word] if word.eq_ignore_ascii_case("any") => return Ok(Some(NetworkNeed::Any)),
        _ => {}
    }
    let hosts = items
        .iter()
        .map(|host| {
            let lower = host.to_ascii_lowercase();
            if is_host(&lower) {
                Ok(lower)
            } else {
                Err(CapabilityError::BadHost {
                    skill: skill.to_owned(),
                    host: (*host).to_owned(),
                })
            }
        })
        .collect::<Result<_, _>>()?;
    Ok(Some(NetworkNeed::Hosts(hosts)))
}

/// A DNS name (letters, digits and `-` in labels of at most 63 characters, at most 253 in all),
/// optionally `*.` before it, or an IPv4 address; optionally `:PORT` (1 to 65535) after it.
fn is_host(text: &str) -> bool {
    let (name, port) = match text.rsplit_once(':') {
        Some((name, port)) => (name, Some(port)),
        None => (text, None),
    };
    if port.is_some_and(|port| port.parse::<u16>().map_or(true, |port| port == 0)) {
        return false;
    }
    let name = name.strip_prefix("*.").unwrap_or(name);
    !name.is_empty()
        && name.len() <= 253
        && name.split('.').all(|label| {
            !label.is_empty()
                && label.len() <= 63
                && !label.starts_with('-')
                && !label.ends_with('-')
                && label.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
        })
}

fn write_path(skill: &str, path: &str) -> Result<String, CapabilityError> {
    let trimmed = path.trim_end_matches('/');
    let refused = |reason: &str| CapabilityError::BadPath {
        skill: skill.to_owned(),
        path: path.to_owned(),
        reason: reason.to_owned(),
    };
    if path.starts_with('/') {
        return Err(refused("is an absolute path"));
    }
    if path.starts_with('~') {
        return Err(refused("is in the home directory"));
    }
    let name = RelativeName::new(trimmed).map_err(|unsafe_name| refused(unsafe_name.reason))?;
    Ok(name.into_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn declared(pairs: &[(&str, &str)]) -> Result<Capabilities, CapabilityError> {
        let metadata = pairs
            .iter()
            .map(|(key, value)| ((*key).to_owned(), (*value).to_owned()))
            .collect();
        Capabilities::from_metadata("demo", &metadata)
    }

    #[test]
    fn nothing_declared_and_none_declare_nothing() {
        assert!(declared(&[("risk", "read")]).unwrap().is_empty());
        assert!(declared(&[(NETWORK_KEY, "none")]).unwrap().is_empty());
        assert_eq!(
            declared(&[(NETWORK_KEY, "ANY")]).unwrap().network,
            Some(NetworkNeed::Any)
        );
    }

    #[test]
    fn hosts_and_paths_are_read_and_normalised() {
        let capabilities = declared(&[
            (NETWORK_KEY, "API.example.com 10.0.0.1:8080,*.github.com"),
            (WRITES_KEY, "out/ reports/2024.md"),
        ])
        .unwrap();
        assert_eq!(
            capabilities.network,
            Some(NetworkNeed::Hosts(vec![
                "api.example.com".into(),
                "10.0.0.1:8080".into(),
                "*.github.com".into()
            ]))
        );
        assert_eq!(capabilities.writes, ["out", "reports/2024.md"]);
        assert_eq!(
            serde_json::to_value(&capabilities).unwrap(),
            serde_json::json!({
                "network": ["api.example.com", "10.0.0.1:8080", "*.github.com"],
                "writes": ["out", "reports/2024.md"]
            })
        );
    }

    #[test]
    fn bad_declarations_are_typed_errors_naming_the_skill_and_field() {
        for host in [
            "http://x.org",
            "x.org:0",
            "x.org:99999",
            "-x.org",
            "a..b",
            "ex ample!",
        ] {
            let error = declared(&[(NETWORK_KEY, host)]).unwrap_err();
            assert!(
                matches!(&error, CapabilityError::BadHost { skill, .. } if skill == "demo"),
                "{host}: {error}"
            );
            assert!(error.to_string().contains("metadata.capabilities.network"));
        }
        for path in ["/etc", "~/.bashrc", "../up", "out/../../x", "C:/x"] {
            let error = declared(&[(WRITES_KEY, path)]).unwrap_err();
            assert!(
                matches!(&error, CapabilityError::BadPath { .. }),
                "{path}: {error}"
            );
            assert!(
                error.to_string().contains("metadata.capabilities.writes"),
                "{error}"
            );
        }
        assert!(matches!(
            declared(&[("capabilities.exec", "yes")]).unwrap_err(),
            CapabilityError::UnknownKey { key, .. } if key == "capabilities.exec"
        ));
        assert!(matches!(
            declared(&[(WRITES_KEY, " , ")]).unwrap_err(),
            CapabilityError::Empty { .. }
        ));
    }
}

//! `skills-lock.json` (its format is `skillful-lockfile`'s): its errors as an install's, and
//! the time an install is recorded at.

use skillful_lockfile::LockError;

use crate::InstallError;

impl From<LockError> for InstallError {
    fn from(LockError { path, reason }: LockError) -> Self {
        InstallError::Lock { path, reason }
    }
}

/// Now, as RFC 3339 in UTC to the second.
pub(crate) fn now_rfc3339() -> String {
    jiff::Timestamp::now()
        .strftime("%Y-%m-%dT%H:%M:%SZ")
        .to_string()
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_time_is_rfc3339() {
        let now = super::now_rfc3339();
        assert_eq!(now.len(), 20, "{now}");
        assert!(now.starts_with("20") && now.ends_with('Z'), "{now}");
        let output = std::process::Command::new("date")
            .args(["-u", "+%Y-%m-%d"])
            .output()
            .unwrap();
        assert_eq!(String::from_utf8_lossy(&output.stdout).trim(), &now[..10]);
    }
}

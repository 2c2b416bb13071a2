//! A class-skill plugin whose resource is evaluated on every read: `current-time`, the current
//! UTC time, numbered by how many times it has been read since the plugin was loaded.
//!
//! Build it with `cargo xtask build-plugins` and load `libclock.so` (`.dylib`, `clock.dll`).

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

use skillful_plugin_abi::{ClassSkill, Resource, SkillFrontmatter, export_skill};

/// The skill: tells the model the current time.
#[derive(Debug, Default)]
pub struct Clock {
    reads: AtomicU64,
}

impl Clock {
    fn current_time(&self) -> Result<String, String> {
        let reading = self.reads.fetch_add(1, Ordering::Relaxed) + 1;
        let since_epoch = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_err(|error| format!("the system clock is before 1970: {error}"))?;
        Ok(format!(
            "utc: {}\nunix_seconds: {}\nreading: {reading}\n",
            utc_timestamp(since_epoch.as_secs()),
            since_epoch.as_secs()
        ))
    }
}

/// `seconds` since the Unix epoch as an RFC 3339 UTC timestamp (`2024-02-29T12:00:00Z`).
pub fn utc_timestamp(seconds: u64) -> String {
    let (days, time) = (seconds / 86_400, seconds % 86_400);
    let (year, month, day) = civil_from_days(days);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        time / 3600,
        time % 3600 / 60,
        time % 60
    )
}

/// The proleptic Gregorian date `days` after 1970-01-01 (Howard Hinnant's `civil_from_days`).
fn civil_from_days(days: u64) -> (u64, u64, u64) {
    let z = days + 719_468;
    let era = z / 146_097;
    let day_of_era = z % 146_097;
    let year_of_era =
        (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let month_index = (5 * day_of_year + 2) / 153;
    let day = day_of_year - (153 * month_index + 2) / 5 + 1;
    let month = if month_index < 10 {
        month_index + 3
    } else {
        month_index - 9
    };
    let year = year_of_era + era * 400 + u64::from(month <= 2);
    (year, month, day)
}

impl ClassSkill for Clock {
    fn frontmatter(&self) -> SkillFrontmatter {
        SkillFrontmatter::new(
            "clock",
            "Tells the current date and time (UTC). Use it whenever an answer depends on today's \
             date or the time now.",
        )
    }

    fn instructions(&self) -> String {
        "Read `current-time` for the current UTC date and time; it is read afresh every time, \
         so read it again rather than reuse an earlier answer."
            .to_owned()
    }

    fn resources(&self) -> Vec<Resource<Self>> {
        vec![
            Resource::dynamic("current-time", Self::current_time)
                .with_description("The current UTC time, read afresh on every read."),
        ]
    }
}

export_skill!(Clock);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps_are_rfc3339_utc_across_leap_days_and_centuries() {
        assert_eq!(utc_timestamp(0), "1970-01-01T00:00:00Z");
        assert_eq!(utc_timestamp(951_782_400), "2000-02-29T00:00:00Z");
        assert_eq!(utc_timestamp(1_709_208_000), "2024-02-29T12:00:00Z");
        assert_eq!(utc_timestamp(4_107_542_399), "2100-02-28T23:59:59Z");
        assert_eq!(utc_timestamp(4_107_542_400), "2100-03-01T00:00:00Z");
    }

    #[test]
    fn every_read_is_a_new_reading() {
        let clock = Clock::default();
        assert!(clock.current_time().unwrap().contains("reading: 1\n"));
        assert!(clock.current_time().unwrap().contains("reading: 2\n"));
    }
}

//! Record times: RFC 3339 in UTC with milliseconds, which sort as text in time order.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use crate::error::AuditError;

/// `time` as `YYYY-MM-DDTHH:MM:SS.mmmZ` (a time before 1970 or past jiff's range as the
/// nearest it can write).
pub fn format_time(time: SystemTime) -> String {
    let timestamp = jiff::Timestamp::try_from(time).unwrap_or(if time < UNIX_EPOCH {
        jiff::Timestamp::UNIX_EPOCH
    } else {
        jiff::Timestamp::MAX
    });
    timestamp.strftime("%Y-%m-%dT%H:%M:%S%.3fZ").to_string()
}

/// The start of a period, as the record times it compares with: an RFC 3339 time (`Z` or an
/// offset; `2026-12-01T10:00:00Z`, seconds and fraction optional; taken to the second), a date
/// (`2026-12-01`, its midnight UTC), or a span back from `now` (`30m`, `12h`, `7d`).
///
/// # Errors
/// [`AuditError::BadTime`] for anything else.
pub fn parse_since(text: &str, now: SystemTime) -> Result<String, AuditError> {
    let bad = || AuditError::BadTime {
        text: text.to_owned(),
    };
    let text = text.trim();
    if let Some(unit) = text.chars().last().filter(|unit| "smhdw".contains(*unit))
        && let Ok(count) = text[..text.len() - 1].parse::<u64>()
    {
        let seconds = match unit {
            's' => 1,
            'm' => 60,
            'h' => 3600,
            'd' => 86_400,
            _ => 604_800,
        };
        let back = Duration::from_secs(count.checked_mul(seconds).ok_or_else(bad)?);
        return Ok(format_time(now.checked_sub(back).unwrap_or(UNIX_EPOCH)));
    }
    if text.len() == 10 {
        let date: jiff::civil::Date = text.parse().map_err(|_| bad())?;
        return Ok(format!("{date}T00:00:00.000Z"));
    }
    let timestamp: jiff::Timestamp = text.parse().map_err(|_| bad())?;
    let to_the_second = jiff::Timestamp::from_second(timestamp.as_second()).map_err(|_| bad())?;
    Ok(to_the_second.strftime("%Y-%m-%dT%H:%M:%S%.3fZ").to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_are_rfc3339_in_utc() {
        let time = UNIX_EPOCH + Duration::from_millis(1_764_616_500_123);
        assert_eq!(format_time(time), "2025-12-01T19:15:00.123Z");
        assert_eq!(format_time(UNIX_EPOCH), "1970-01-01T00:00:00.000Z");
        let leap = UNIX_EPOCH + Duration::from_secs(951_782_400);
        assert_eq!(format_time(leap), "2000-02-29T00:00:00.000Z");
    }

    #[test]
    fn since_takes_times_dates_and_spans() {
        let now = UNIX_EPOCH + Duration::from_secs(1_764_616_500);
        assert_eq!(
            parse_since("2026-12-01", now).unwrap(),
            "2026-12-01T00:00:00.000Z"
        );
        assert_eq!(
            parse_since("2026-12-01T10:20Z", now).unwrap(),
            "2026-12-01T10:20:00.000Z"
        );
        assert_eq!(
            parse_since("2026-12-01T10:20:30.5Z", now).unwrap(),
            "2026-12-01T10:20:30.000Z"
        );
        assert_eq!(parse_since("1d", now).unwrap(), "2025-11-30T19:15:00.000Z");
        assert_eq!(parse_since("90m", now).unwrap(), "2025-12-01T17:45:00.000Z");
        for bad in ["yesterday", "2026-1-01", "2026-12-01T10:20", "d", "-1d"] {
            assert!(parse_since(bad, now).is_err(), "{bad}");
        }
    }
}

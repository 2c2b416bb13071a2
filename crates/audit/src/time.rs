//! Record times: RFC 3339 in UTC with milliseconds, which sort as text in time order.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use crate::error::AuditError;

/// `time` as `YYYY-MM-DDTHH:MM:SS.mmmZ`.
pub fn format_time(time: SystemTime) -> String {
    let since = time.duration_since(UNIX_EPOCH).unwrap_or_default();
    let seconds = since.as_secs();
    let (year, month, day) = civil_from_days((seconds / 86_400) as i64);
    let of_day = seconds % 86_400;
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{:03}Z",
        of_day / 3600,
        of_day / 60 % 60,
        of_day % 60,
        since.subsec_millis()
    )
}

/// The start of a period, as the record times it compares with: an RFC 3339 time in UTC
/// (`2026-12-01T10:00:00Z`, seconds and fraction optional), a date (`2026-12-01`, its midnight
/// UTC), or a span back from `now` (`30m`, `12h`, `7d`).
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
    let bytes = text.as_bytes();
    let digits = |range: std::ops::Range<usize>| {
        bytes
            .get(range)
            .filter(|part| part.iter().all(u8::is_ascii_digit))
            .map(|part| std::str::from_utf8(part).unwrap_or_default().to_owned())
    };
    let (Some(year), Some(month), Some(day)) = (digits(0..4), digits(5..7), digits(8..10)) else {
        return Err(bad());
    };
    if bytes.get(4) != Some(&b'-') || bytes.get(7) != Some(&b'-') {
        return Err(bad());
    }
    if bytes.len() == 10 {
        return Ok(format!("{year}-{month}-{day}T00:00:00.000Z"));
    }
    if !matches!(bytes.get(10), Some(b'T' | b't' | b' ')) || !text.ends_with(['Z', 'z']) {
        return Err(bad());
    }
    let (Some(hour), Some(minute)) = (digits(11..13), digits(14..16)) else {
        return Err(bad());
    };
    let second = if bytes.get(16) == Some(&b':') {
        digits(17..19).ok_or_else(bad)?
    } else {
        "00".to_owned()
    };
    Ok(format!(
        "{year}-{month}-{day}T{hour}:{minute}:{second}.000Z"
    ))
}

/// The proleptic Gregorian date of a day counted from 1970-01-01 (Howard Hinnant's algorithm).
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
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

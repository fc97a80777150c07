//! Date filters of query strings, the same on every route: an RFC 3339 timestamp
//! (`2026-01-31T12:00:00Z`) or a plain date (`2026-01-31`). A plain date means the
//! start of that day (UTC) as a lower bound and its end as an upper bound, so
//! `startDate=2026-01-31&endDate=2026-01-31` is that whole day.

use crate::error::ApiError;
use chrono::{DateTime, NaiveDate, NaiveTime, Utc};
use reviewd_domain::ErrorCode;

fn parse(name: &str, value: Option<&str>, end: bool) -> Result<Option<DateTime<Utc>>, ApiError> {
    // Present means given: `startDate=` or a padded value is as malformed as any other
    // text (the dashboard's forms drop their empty fields before asking).
    let Some(value) = value else {
        return Ok(None);
    };
    let malformed = || {
        ApiError::bad_request(
            ErrorCode::InvalidQuery,
            format!(
                "{name} must be a date (2026-01-31) or an RFC 3339 timestamp (2026-01-31T12:00:00Z)"
            ),
        )
    };
    // chrono's parsers skip white space; the document's formats do not allow it.
    if value.is_empty() || value.trim() != value {
        return Err(malformed());
    }
    if let Ok(at) = DateTime::parse_from_rfc3339(value) {
        return Ok(Some(at.with_timezone(&Utc)));
    }
    let day = NaiveDate::parse_from_str(value, "%Y-%m-%d").map_err(|_| malformed())?;
    let time = if end {
        NaiveTime::from_hms_micro_opt(23, 59, 59, 999_999).unwrap_or(NaiveTime::MIN)
    } else {
        NaiveTime::MIN
    };
    Ok(Some(day.and_time(time).and_utc()))
}

/// A lower bound (`startDate`, `since`).
///
/// # Errors
/// 400 `INVALID_QUERY` naming `name` for anything else than a date or timestamp.
pub fn date_from(name: &str, value: Option<&str>) -> Result<Option<DateTime<Utc>>, ApiError> {
    parse(name, value, false)
}

/// An upper bound (`endDate`), inclusive of a plain date's whole day.
///
/// # Errors
/// 400 `INVALID_QUERY` naming `name` for anything else than a date or timestamp.
pub fn date_until(name: &str, value: Option<&str>) -> Result<Option<DateTime<Utc>>, ApiError> {
    parse(name, value, true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_or_padded_values_are_malformed() {
        for bad in ["", " ", " 2026-01-31", "2026-01-31 "] {
            assert!(date_from("startDate", Some(bad)).is_err(), "{bad:?}");
        }
        assert_eq!(date_until("endDate", None).unwrap(), None);
    }

    #[test]
    fn plain_dates_and_timestamps_are_both_accepted() {
        let day = date_from("startDate", Some("2026-01-31")).unwrap().unwrap();
        assert_eq!(day.to_rfc3339(), "2026-01-31T00:00:00+00:00");
        let end = date_until("endDate", Some("2026-01-31")).unwrap().unwrap();
        assert_eq!(end.format("%H:%M:%S").to_string(), "23:59:59");
        let at = date_from("startDate", Some("2026-01-31T12:30:00+02:00"))
            .unwrap()
            .unwrap();
        assert_eq!(at.to_rfc3339(), "2026-01-31T10:30:00+00:00");
        assert_eq!(date_from("startDate", None).unwrap(), None);
    }

    #[test]
    fn anything_else_is_a_400_naming_the_parameter() {
        for bad in [
            "31/01/2026",
            "2026-02-30",
            "yesterday",
            "2026-01-31T25:00:00Z",
            "\u{0}",
        ] {
            let err = date_from("startDate", Some(bad)).unwrap_err();
            assert_eq!(err.code, ErrorCode::InvalidQuery);
            assert!(
                err.message.starts_with("startDate"),
                "{bad}: {}",
                err.message
            );
        }
    }
}

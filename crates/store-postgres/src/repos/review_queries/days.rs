//! The whole UTC days inside a time filter: the daily rollups answer for those, the
//! table's own rows for the partial days at its edges.

use chrono::{DateTime, Days, NaiveDate, NaiveTime, Utc};

/// The whole days `[first, end)` that a filter `start..end` covers (either bound
/// open, `None`). A row's day is inside when its day is; the rows outside
/// `[first 00:00 UTC, end 00:00 UTC)` are read from the table. Holds whether the
/// filter's end is inclusive or not: a day before `end`'s own ends at or before it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct WholeDays {
    pub(crate) first: Option<NaiveDate>,
    pub(crate) end: Option<NaiveDate>,
}

pub(crate) fn whole_days(start: Option<DateTime<Utc>>, end: Option<DateTime<Utc>>) -> WholeDays {
    let first = start.map(|s| {
        let day = s.date_naive();
        if s.time() == NaiveTime::MIN {
            day
        } else {
            // A start after midnight leaves its own day partial.
            day.checked_add_days(Days::new(1)).unwrap_or(NaiveDate::MAX)
        }
    });
    WholeDays {
        first,
        end: end.map(|e| e.date_naive()),
    }
}

/// SQL: the first whole day (`$first`, a nullable date parameter), unbounded when NULL.
pub(crate) fn first_day(param: &str) -> String {
    format!("coalesce({param}::date, '-infinity'::date)")
}

/// SQL: the end of the whole days (`$end`, a nullable date parameter), unbounded when NULL.
pub(crate) fn end_day(param: &str) -> String {
    format!("coalesce({param}::date, 'infinity'::date)")
}

/// SQL: `column` outside the whole days `[first, end)` given as date parameters.
pub(crate) fn outside(column: &str, first: &str, end: &str) -> String {
    format!(
        "({column} < {}::timestamp AT TIME ZONE 'UTC' OR {column} >= {}::timestamp AT TIME ZONE 'UTC')",
        first_day(first),
        end_day(end)
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    fn at(y: i32, m: u32, d: u32, h: u32) -> DateTime<Utc> {
        Utc.with_ymd_and_hms(y, m, d, h, 0, 0)
            .single()
            .unwrap_or_default()
    }

    fn day(y: i32, m: u32, d: u32) -> Option<NaiveDate> {
        NaiveDate::from_ymd_opt(y, m, d)
    }

    #[test]
    fn a_midnight_start_is_whole_a_later_one_is_not() {
        assert_eq!(
            whole_days(Some(at(2026, 3, 4, 0)), None).first,
            day(2026, 3, 4)
        );
        assert_eq!(
            whole_days(Some(at(2026, 3, 4, 7)), None).first,
            day(2026, 3, 5)
        );
    }

    #[test]
    fn the_end_day_itself_is_never_whole() {
        let w = whole_days(None, Some(at(2026, 3, 4, 23)));
        assert_eq!((w.first, w.end), (None, day(2026, 3, 4)));
    }
}

//! What AI calls cost: tokens times the configuration's prices (USD per million
//! tokens). A configuration without prices has no known cost, which is kept
//! apart from a cost of zero (a free local model).

use chrono::{DateTime, Datelike, Months, NaiveDate, NaiveTime, Utc};

/// Tokens per price unit: prices are quoted per million tokens.
const TOKENS_PER_PRICE_UNIT: f64 = 1_000_000.0;

/// The prices of one AI configuration, in USD per million tokens.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct AiPrices {
    pub input_per_mtok: Option<f64>,
    pub output_per_mtok: Option<f64>,
}

impl AiPrices {
    /// The cost of one call of these token counts; see [`cost_usd`].
    #[must_use]
    pub fn cost_usd(&self, prompt_tokens: u32, completion_tokens: u32) -> Option<f64> {
        cost_usd(
            prompt_tokens,
            completion_tokens,
            self.input_per_mtok,
            self.output_per_mtok,
        )
    }
}

/// The cost in USD of one call: prompt tokens at the input price plus completion
/// tokens at the output price. `None` unless both prices are known: half a price
/// would report a cost lower than the bill.
#[must_use]
pub fn cost_usd(
    prompt_tokens: u32,
    completion_tokens: u32,
    input_price_per_mtok: Option<f64>,
    output_price_per_mtok: Option<f64>,
) -> Option<f64> {
    let (input, output) = (input_price_per_mtok?, output_price_per_mtok?);
    Some(
        (f64::from(prompt_tokens) * input + f64::from(completion_tokens) * output)
            / TOKENS_PER_PRICE_UNIT,
    )
}

/// The calendar month (UTC) that budgets and "this month" figures count in: its
/// first day, its first instant, and the first day of the next one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BudgetMonth {
    pub first_day: NaiveDate,
    pub next_first_day: NaiveDate,
}

impl BudgetMonth {
    /// The month `now` falls in.
    #[must_use]
    pub fn of(now: DateTime<Utc>) -> Self {
        let today = now.date_naive();
        let first_day = today.with_day(1).unwrap_or(today);
        let next_first_day = first_day
            .checked_add_months(Months::new(1))
            .unwrap_or(NaiveDate::MAX);
        Self {
            first_day,
            next_first_day,
        }
    }

    /// Midnight UTC of its first day.
    #[must_use]
    pub fn start(&self) -> DateTime<Utc> {
        self.first_day.and_time(NaiveTime::MIN).and_utc()
    }

    /// `2026-11`, as markers and messages name it.
    #[must_use]
    pub fn label(&self) -> String {
        self.first_day.format("%Y-%m").to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_budget_month_runs_from_its_first_day_to_the_next_months_utc() {
        let at = |s: &str| DateTime::parse_from_rfc3339(s).unwrap().with_timezone(&Utc);
        let november = BudgetMonth::of(at("2026-11-30T23:59:59Z"));
        assert_eq!(november.label(), "2026-11");
        assert_eq!(november.start(), at("2026-11-01T00:00:00Z"));
        assert_eq!(november.next_first_day.to_string(), "2026-12-01");
        // New Year, and the first instant of a month belonging to that month.
        let december = BudgetMonth::of(at("2026-12-31T12:00:00Z"));
        assert_eq!(december.next_first_day.to_string(), "2027-01-01");
        assert_eq!(
            BudgetMonth::of(at("2027-01-01T00:00:00Z")).label(),
            "2027-01"
        );
        // A time zone ahead of UTC is still counted in UTC.
        let tokyo = DateTime::parse_from_rfc3339("2026-12-01T05:00:00+09:00").unwrap();
        assert_eq!(
            BudgetMonth::of(tokyo.with_timezone(&Utc)).label(),
            "2026-11"
        );
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-12
    }

    #[test]
    fn tokens_are_priced_per_million_on_each_side() {
        let cost = cost_usd(100, 20, Some(2.5), Some(10.0)).unwrap();
        assert!(close(cost, 0.000_45), "{cost}");
        let million = cost_usd(1_000_000, 1_000_000, Some(2.5), Some(10.0)).unwrap();
        assert!(close(million, 12.5), "{million}");
    }

    #[test]
    fn a_configuration_without_prices_has_no_cost() {
        assert_eq!(cost_usd(100, 20, None, None), None);
        assert_eq!(cost_usd(100, 20, Some(2.5), None), None);
        assert_eq!(cost_usd(100, 20, None, Some(10.0)), None);
        assert_eq!(AiPrices::default().cost_usd(100, 20), None);
    }

    #[test]
    fn free_models_and_failed_calls_cost_zero_not_unknown() {
        assert_eq!(cost_usd(100, 20, Some(0.0), Some(0.0)), Some(0.0));
        assert_eq!(cost_usd(0, 0, Some(2.5), Some(10.0)), Some(0.0));
    }
}

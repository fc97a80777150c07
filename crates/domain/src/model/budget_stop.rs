//! An automatic review not queued because its project's monthly AI budget is spent: what
//! the webhook answers, the note on the MR and the notification say of it.

use super::ids::ProjectId;
use crate::model::{BudgetMonth, PlatformType};

/// An automatic review not queued because the project's budget is spent.
#[derive(Debug, Clone, PartialEq)]
pub struct BudgetStop {
    pub project_id: ProjectId,
    pub project_name: String,
    pub project_url: String,
    pub platform_type: PlatformType,
    pub iid: i64,
    pub budget_usd: f64,
    pub spent_usd: f64,
    pub month: BudgetMonth,
    /// Whether the project posts to its platform: the note on the MR follows it.
    pub note_on_mr: bool,
    /// A review command that still reviews the MR, for the note to name.
    pub review_command: Option<String>,
}

impl BudgetStop {
    /// The webhook's answer: why nothing was queued.
    #[must_use]
    pub fn reason(&self) -> String {
        format!(
            "the monthly AI budget of this project is spent ({}): automatic reviews resume on {}; manual reviews still run",
            self.spent_of_budget(),
            self.month.next_first_day
        )
    }

    /// `$12.40 of $10.00 in 2026-11`.
    #[must_use]
    pub fn spent_of_budget(&self) -> String {
        format!(
            "{} of {} in {}",
            usd(self.spent_usd),
            usd(self.budget_usd),
            self.month.label()
        )
    }

    /// `!12` on hostA, `#12` on hostB, as each platform names its MRs.
    #[must_use]
    pub fn mr_ref(&self) -> String {
        match self.platform_type {
            PlatformType::Gitlab => format!("!{}", self.iid),
            PlatformType::Github => format!("#{}", self.iid),
        }
    }

    /// The hidden marker that keeps the note to one per MR and month.
    #[must_use]
    pub fn marker(&self) -> String {
        format!("<!-- reviewd:budget-spent:{} -->", self.month.label())
    }

    /// The note posted on the MR.
    #[must_use]
    pub fn note(&self) -> String {
        let (kind, manual) = match self.platform_type {
            PlatformType::Gitlab => ("merge request", "this merge request"),
            PlatformType::Github => ("pull request", "this pull request"),
        };
        let ask = match &self.review_command {
            Some(command) => format!("To review {manual} anyway, comment `{command}`."),
            None => format!("To review {manual} anyway, start a manual review in reviewd."),
        };
        format!(
            "### reviewd: automatic review paused\n\nThis project's monthly AI budget is spent \
             ({}), so this {kind} was not reviewed automatically. Automatic reviews resume on \
             {}, or as soon as the budget is raised.\n\n{ask}\n\n{}\n",
            self.spent_of_budget(),
            self.month.next_first_day,
            self.marker()
        )
    }
}

/// Dollars and cents, or the first significant digits of a sum under a cent (a
/// test budget, a cheap model's day): `$12.40`, `$0.000123`.
fn usd(amount: f64) -> String {
    let sign = if amount < 0.0 { "-" } else { "" };
    let amount = amount.abs();
    if !amount.is_finite() {
        return format!("{sign}${amount}");
    }
    if amount == 0.0 || amount >= 0.01 {
        return format!("{sign}${amount:.2}");
    }
    let digits = format!("{amount:.8}");
    let digits = digits.trim_end_matches('0').trim_end_matches('.');
    match digits {
        "0" => "$0.00".to_owned(),
        digits => format!("{sign}${digits}"),
    }
}

#[cfg(test)]
mod tests {
    use super::usd;

    #[test]
    fn sums_show_cents_or_the_digits_under_a_cent() {
        assert_eq!(usd(12.4), "$12.40");
        assert_eq!(usd(0.0), "$0.00");
        assert_eq!(usd(0.01), "$0.01");
        assert_eq!(usd(0.000_123), "$0.000123");
        assert_eq!(usd(0.000_001), "$0.000001");
        assert_eq!(usd(1e-10), "$0.00", "no bare dot");
        assert_eq!(usd(-12.4), "-$12.40");
        assert_eq!(usd(-0.005), "-$0.005");
        assert_eq!(usd(-0.0), "$0.00");
    }
}

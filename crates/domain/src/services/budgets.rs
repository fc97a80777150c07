//! Monthly AI budgets. A project whose AI calls this calendar month (UTC) cost its
//! `monthlyBudget` gets no more automatic reviews until the next month; manual
//! triggers (a review command, the manual review page) still run, since a person
//! asking for a review has decided it is worth its cost. Reviews already queued
//! finish. The stop is told once per MR and month on the MR (when the project posts
//! to its platform) and once per month to the notification channels.

use super::{NotificationService, ProjectService, ServiceError};
use crate::model::{BudgetMonth, PlatformType, Project};
use crate::ports::{Clock, ProjectRepository};
use std::sync::Arc;
use uuid::Uuid;

/// An automatic review not queued because the project's budget is spent.
#[derive(Debug, Clone, PartialEq)]
pub struct BudgetStop {
    pub project_id: Uuid,
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
            PlatformType::HostA => format!("!{}", self.iid),
            PlatformType::HostB => format!("#{}", self.iid),
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
            PlatformType::HostA => ("merge request", "this merge request"),
            PlatformType::HostB => ("pull request", "this pull request"),
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

/// Whether `spent` reached `budget`, forgiving the rounding of a sum of many
/// small doubles (0.7 + 0.2 + 0.1 is a hair under 1.0).
fn reached(spent: f64, budget: f64) -> bool {
    spent >= budget - budget.abs() * 1e-9
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

pub struct Budgets {
    projects: Arc<dyn ProjectRepository>,
    platforms: Arc<ProjectService>,
    clock: Arc<dyn Clock>,
    notifications: Option<Arc<NotificationService>>,
}

impl Budgets {
    pub fn new(
        projects: Arc<dyn ProjectRepository>,
        platforms: Arc<ProjectService>,
        clock: Arc<dyn Clock>,
    ) -> Self {
        Self {
            projects,
            platforms,
            clock,
            notifications: None,
        }
    }

    /// Announces each month's stop on the notification channels too.
    #[must_use]
    pub fn notifying(mut self, notifications: Arc<NotificationService>) -> Self {
        self.notifications = Some(notifications);
        self
    }

    /// What the project spent this month and its budget, when it has one and the
    /// spending reached it; `None` when an automatic review may run.
    ///
    /// # Errors
    /// Store failures.
    pub async fn spent(
        &self,
        project: &Project,
    ) -> Result<Option<(f64, f64, BudgetMonth)>, ServiceError> {
        let Some(budget) = project.monthly_budget_usd else {
            return Ok(None);
        };
        // One reading of the clock: at midnight on the 1st, the month named and the
        // month summed are the same.
        let month = BudgetMonth::of(self.clock.now());
        let spent = self.projects.cost_since(project.id, month.start()).await?;
        Ok(reached(spent, budget).then_some((spent, budget, month)))
    }

    /// What the project's calls cost this calendar month (UTC) so far.
    ///
    /// # Errors
    /// Store failures.
    pub async fn this_month(&self, project_id: Uuid) -> Result<f64, ServiceError> {
        let month = BudgetMonth::of(self.clock.now());
        Ok(self.projects.cost_since(project_id, month.start()).await?)
    }

    /// Tells the MR and, once a month, the notification channels. Failures are
    /// logged: they cost only the message, and the webhook was answered already.
    pub async fn announce(&self, stop: &BudgetStop) {
        if stop.note_on_mr {
            self.note_on_mr(stop).await;
        }
        let Some(notifications) = &self.notifications else {
            return;
        };
        match self
            .projects
            .claim_budget_alert(stop.project_id, stop.month.first_day)
            .await
        {
            Ok(true) => notifications.budget_spent(stop).await,
            Ok(false) => {}
            Err(e) => {
                tracing::warn!(project.id = %stop.project_id, error = %e, "budget.alert_not_claimed");
            }
        }
    }

    /// Posts the note, once per MR and month: the store's claim decides between
    /// webhooks of one MR arriving together, and the marker check covers a note
    /// posted before the claim was kept (a restore). A note that cannot be posted
    /// gives its claim back, so a later push tries again.
    async fn note_on_mr(&self, stop: &BudgetStop) {
        let (project_id, iid, month) = (stop.project_id, stop.iid, stop.month.first_day);
        match self
            .projects
            .claim_budget_note(project_id, iid, month)
            .await
        {
            Ok(true) => {}
            Ok(false) => return,
            Err(e) => {
                tracing::warn!(project.id = %project_id, mr.iid = iid, error = %e, "budget.note_skipped");
                return;
            }
        }
        if let Err(error) = self.post_note(stop).await {
            tracing::warn!(project.id = %project_id, mr.iid = iid, %error, "budget.note_failed");
            if let Err(e) = self
                .projects
                .release_budget_note(project_id, iid, month)
                .await
            {
                tracing::warn!(project.id = %project_id, mr.iid = iid, error = %e, "budget.note_claim_kept");
            }
        }
    }

    async fn post_note(&self, stop: &BudgetStop) -> Result<(), String> {
        let (project, platform) = self
            .platforms
            .with_platform(stop.project_id)
            .await
            .map_err(|e| e.to_string())?;
        let target = project.platform_ref();
        let marker = stop.marker();
        let existing = platform
            .list_comments(&target, stop.iid)
            .await
            .map_err(|e| e.to_string())?;
        if existing.iter().any(|c| c.body.contains(&marker)) {
            return Ok(());
        }
        platform
            .post_comment(&target, stop.iid, &stop.note())
            .await
            .map_err(|e| e.to_string())?;
        tracing::info!(project.id = %stop.project_id, mr.iid = stop.iid, "budget.note_posted");
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::{reached, usd};

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

    #[test]
    fn a_sum_a_hair_under_the_budget_reaches_it() {
        assert!(reached(0.7 + 0.2 + 0.1, 1.0));
        assert!(!reached(0.99, 1.0));
        assert!(
            reached(0.0, 0.0),
            "a budget of 0 stops every automatic review"
        );
        assert!(!reached(0.0, 0.000_001));
    }
}

//! Monthly AI budgets. A project whose AI calls this calendar month (UTC) cost its
//! `monthlyBudget` gets no more automatic reviews until the next month; manual
//! triggers (a review command, the manual review page) still run, since a person
//! asking for a review has decided it is worth its cost. Reviews already queued
//! finish. The stop is told once per MR and month on the MR (when the project posts
//! to its platform) and once per month to the notification channels.

use super::{NotificationService, ProjectService, ServiceError};
use crate::model::ProjectId;
use crate::model::budget_stop::BudgetStop;
use crate::model::{BudgetMonth, Project};
use crate::ports::{Clock, ProjectRepository};
use std::sync::Arc;

/// Whether `spent` reached `budget`, forgiving the rounding of a sum of many
/// small doubles (0.7 + 0.2 + 0.1 is a hair under 1.0).
fn reached(spent: f64, budget: f64) -> bool {
    spent >= budget - budget.abs() * 1e-9
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
    pub async fn this_month(&self, project_id: ProjectId) -> Result<f64, ServiceError> {
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
    use super::reached;

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

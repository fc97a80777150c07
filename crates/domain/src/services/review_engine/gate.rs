//! The merge gate through a review's life: `pending` when the webhook queued the
//! task (or it was queued again to retry), `running` when a round begins, then the
//! policy's verdict when it concludes, or `errored` when the review fails. Every
//! post is best effort: a platform that refuses statuses (a token without the
//! scope, an App without `checks: write`) costs a warning, never the review.

use super::ReviewEngine;
use super::round::RoundPlan;
use crate::model::gate::{CommitGate, GateState};
use crate::model::grade::Rating;
use crate::model::review::Review;
use crate::model::review::ReviewStatus;
use crate::model::{Project, ProjectId, ReviewId, ReviewTask, TaskStatus};
use crate::ports::HostingPlatform;
use crate::review::gate::{GatePolicy, verdict};
use std::sync::Arc;
use uuid::Uuid;

/// What a failed review's gate says (the reason is on the review's page).
const FAILED_TEXT: &str = "the review did not finish: see the review's page";

impl ReviewEngine {
    /// Where the review's merge gate stands as the project's policy judges it now
    /// (for the review's page; a repository's `.reviewd.yml` may have judged the
    /// posted one otherwise): `None` when the project posts no gate.
    ///
    /// # Errors
    /// `NotFound` for an unknown review; store failures.
    pub async fn gate_view(
        &self,
        review_id: ReviewId,
    ) -> Result<Option<(GateState, String)>, crate::services::ServiceError> {
        let review = self
            .reviews
            .get(review_id)
            .await
            .map_err(|e| crate::services::ServiceError::from_repo(e, "review"))?;
        let config = self.projects.resolved_config(review.project_id).await?;
        if !config.gate.enabled || !config.send_to_platform {
            return Ok(None);
        }
        Ok(Some(match (review.status, review.grade) {
            (ReviewStatus::Pending, _) => (GateState::Running, "a round is under way".to_owned()),
            (ReviewStatus::Completed, Some((grade, score))) => {
                let standing = self.reviews.standing_findings(review_id).await?;
                verdict(&config.gate, standing, grade, score)
            }
            _ => (
                GateState::Errored,
                format!(
                    "the review did not finish: {}",
                    review
                        .error_message
                        .as_deref()
                        .unwrap_or("no reason recorded")
                ),
            ),
        }))
    }

    /// The project, its platform and its gate's policy, when it posts a gate (a
    /// store or platform hiccup reading them posts nothing: best effort).
    async fn gated(
        &self,
        project_id: ProjectId,
    ) -> Option<(Project, Arc<dyn HostingPlatform>, GatePolicy)> {
        let (project, platform) = self.projects.with_platform(project_id).await.ok()?;
        let config = self.projects.resolved_config(project.id).await.ok()?;
        config
            .gate
            .enabled
            .then_some((project, platform, config.gate))
    }

    /// The review's page, for the status's link.
    fn review_url(&self, review_id: Option<ReviewId>) -> Option<String> {
        let base = self.settings.app_url.as_deref()?.trim_end_matches('/');
        Some(match review_id {
            Some(id) => format!("{base}/reviews/{id}"),
            None => format!("{base}/reviews"),
        })
    }

    /// Posts `state` for `sha` when `policy` says the gate is on.
    pub(super) async fn post_gate(
        &self,
        (platform, project): (&dyn HostingPlatform, &Project),
        sha: &str,
        (state, description): (GateState, &str),
        review_id: Option<ReviewId>,
    ) {
        let gate = CommitGate::new(state, description, self.review_url(review_id));
        match platform
            .set_commit_gate(&project.platform_ref(), sha, &gate)
            .await
        {
            Ok(()) => {
                tracing::info!(project.id = %project.id, sha, state = state.as_str(), "gate.posted");
            }
            Err(e) => {
                tracing::warn!(project.id = %project.id, sha, state = state.as_str(), error = %e, "gate.not_posted");
            }
        }
    }

    /// `pending` for a task the webhook just queued, posted off the request's
    /// path. A worker may have concluded meanwhile (its verdict posted before this
    /// `pending` landed): the review is read again after posting, and a concluded
    /// round of this head has its verdict posted again, so a late `pending` never
    /// stands over it. A round still under way posts its verdict itself, later.
    pub async fn gate_queued(&self, task_id: Uuid) {
        let Ok(task) = self.tasks.get(task_id).await else {
            return;
        };
        if task.status != TaskStatus::Queued || task.conversation_id.is_some() {
            return;
        }
        let Some(sha) = task.head_sha.clone() else {
            return;
        };
        let Some((project, platform, project_gate)) = self.gated(task.project_id).await else {
            return;
        };
        let at = (platform.as_ref(), &project);
        self.post_gate(
            at,
            &sha,
            (GateState::Pending, "review queued"),
            task.review_id,
        )
        .await;
        if let Ok(Some(review)) = self.reviews.find_for_mr(task.project_id, task.mr_iid).await
            && review.status == ReviewStatus::Completed
            && review.head_commit_sha == sha
        {
            // The policy the round concluded under: the project's, made stricter
            // by the file at this head.
            let file = self
                .repo_config(at.0, at.1, &task, &sha)
                .await
                .ok()
                .flatten();
            let policy = file
                .and_then(|f| f.gate)
                .map_or(project_gate, |g| g.over(project_gate));
            self.repost_verdict(at, &review, policy).await;
        }
    }

    /// The verdict of `review`'s last round again (its head already reviewed, or a
    /// late `pending` to cover): from what stands now and that round's grade.
    pub(super) async fn repost_verdict(
        &self,
        at: (&dyn HostingPlatform, &Project),
        review: &Review,
        policy: GatePolicy,
    ) {
        let Some((grade, score)) = review.grade else {
            self.post_gate(
                at,
                &review.head_commit_sha,
                (GateState::Errored, FAILED_TEXT),
                Some(review.id),
            )
            .await;
            return;
        };
        self.post_verdict(
            at,
            &review.head_commit_sha,
            review.id,
            policy,
            (grade, score),
        )
        .await;
    }

    /// The policy's verdict on `sha`, from the review's standing findings.
    pub(super) async fn post_verdict(
        &self,
        at: (&dyn HostingPlatform, &Project),
        sha: &str,
        review_id: ReviewId,
        policy: GatePolicy,
        (grade, score): (Rating, u32),
    ) {
        if !policy.enabled {
            return;
        }
        let standing = match self.reviews.standing_findings(review_id).await {
            Ok(s) => s,
            Err(e) => {
                // Unknown is not green.
                tracing::warn!(review.id = %review_id, error = %e, "gate.standing_unread");
                let text =
                    "the findings could not be read: the gate is posted again with the next round";
                self.post_gate(at, sha, (GateState::Errored, text), Some(review_id))
                    .await;
                return;
            }
        };
        let (state, text) = verdict(&policy, standing, grade, score);
        self.post_gate(at, sha, (state, &text), Some(review_id))
            .await;
    }

    /// `running` as a round begins.
    pub(super) async fn gate_round_begun(&self, plan: &RoundPlan) {
        if plan.gate.enabled {
            let at = (plan.platform.as_ref(), &plan.project);
            let text = format!(
                "round {}: reviewing {} file(s)",
                plan.number,
                plan.to_review.len()
            );
            self.post_gate(
                at,
                &plan.head,
                (GateState::Running, &text),
                Some(plan.review.id),
            )
            .await;
        }
    }

    /// `pending` again for a task queued for another attempt, or `errored` for one
    /// that failed for good.
    pub(super) async fn gate_after_failure(&self, task: &ReviewTask, retrying: bool) {
        if task.conversation_id.is_some() {
            return;
        }
        let Some((project, platform, _)) = self.gated(task.project_id).await else {
            return;
        };
        // The reason stays behind the review's link: a status is public on a public
        // repository, and a provider's error can name hosts and configurations.
        let (state, text) = if retrying {
            (GateState::Pending, "an attempt failed; queued again")
        } else {
            (GateState::Errored, FAILED_TEXT)
        };
        let review = self
            .reviews
            .find_for_mr(task.project_id, task.mr_iid)
            .await
            .ok()
            .flatten();
        // The task's own head: the review's is the last *concluded* round's, an
        // older commit once a later round began.
        let Some(sha) = task
            .head_sha
            .clone()
            .or_else(|| review.as_ref().map(|r| r.head_commit_sha.clone()))
        else {
            return;
        };
        self.post_gate(
            (platform.as_ref(), &project),
            &sha,
            (state, text),
            review.map(|r| r.id),
        )
        .await;
    }
}

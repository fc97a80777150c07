//! The merge gate through a review's life: `pending` when the webhook queued the
//! task (or it was queued again to retry), `running` when a round begins, then the
//! policy's verdict when it concludes, or `errored` when the review fails. Every
//! post is best effort: a platform that refuses statuses (a token without the
//! scope, an App without `checks: write`) costs a warning, never the review.

use super::ReviewEngine;
use super::round::RoundPlan;
use crate::model::gate::{CommitGate, GateState};
use crate::model::grade::Rating;
use crate::model::{Project, ReviewId, ReviewTask, TaskStatus};
use crate::ports::HostingPlatform;
use crate::review::gate::{GatePolicy, verdict};
use uuid::Uuid;

impl ReviewEngine {
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
    /// path. A worker may have taken the task meanwhile: then what it came to is
    /// posted again after, so a late `pending` never stands over it.
    pub async fn gate_queued(&self, task_id: Uuid) {
        let Ok(task) = self.tasks.get(task_id).await else {
            return;
        };
        if task.status != TaskStatus::Queued || task.conversation_id.is_some() {
            return;
        }
        let Ok((project, platform)) = self.projects.with_platform(task.project_id).await else {
            return;
        };
        let Ok(config) = self.projects.resolved_config(project.id).await else {
            return;
        };
        if !config.gate.enabled {
            return;
        }
        let at = (platform.as_ref(), &project);
        let Some(sha) = task.head_sha.clone() else {
            return;
        };
        self.post_gate(
            at,
            &sha,
            (GateState::Pending, "review queued"),
            task.review_id,
        )
        .await;
        let Ok(now) = self.tasks.get(task_id).await else {
            return;
        };
        match now.status {
            TaskStatus::Queued => {}
            TaskStatus::Processing => {
                self.post_gate(at, &sha, (GateState::Running, "reviewing"), now.review_id)
                    .await;
            }
            _ => self.repost_verdict(at, &now, config.gate).await,
        }
    }

    /// The verdict of the review of `task`'s MR again (its head already reviewed,
    /// or a late `pending` to cover): from what stands now and the last grade.
    pub(super) async fn repost_verdict(
        &self,
        at: (&dyn HostingPlatform, &Project),
        task: &ReviewTask,
        policy: GatePolicy,
    ) {
        let Ok(Some(review)) = self.reviews.find_for_mr(task.project_id, task.mr_iid).await else {
            return;
        };
        let Some((grade, score)) = review.grade else {
            let message = review
                .error_message
                .as_deref()
                .unwrap_or("the review did not finish");
            self.post_gate(
                at,
                &review.head_commit_sha,
                (GateState::Errored, message),
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

    /// `running` as a round begins; when `.reviewd.yml` turned the gate off for
    /// this repository, the `pending` the webhook posted is closed instead.
    pub(super) async fn gate_round_begun(&self, plan: &RoundPlan, project_policy: GatePolicy) {
        let at = (plan.platform.as_ref(), &plan.project);
        let review = Some(plan.review.id);
        if plan.gate.enabled {
            let text = format!(
                "round {}: reviewing {} file(s)",
                plan.number,
                plan.to_review.len()
            );
            self.post_gate(at, &plan.head, (GateState::Running, &text), review)
                .await;
        } else if project_policy.enabled {
            let text = "the gate is off for this repository (.reviewd.yml gate.enabled: false)";
            self.post_gate(at, &plan.head, (GateState::Passed, text), review)
                .await;
        }
    }

    /// `pending` again for a task queued for another attempt, or `errored` for one
    /// that failed for good.
    pub(super) async fn gate_after_failure(
        &self,
        task: &ReviewTask,
        retrying: bool,
        message: &str,
    ) {
        if task.conversation_id.is_some() {
            return;
        }
        let Ok((project, platform)) = self.projects.with_platform(task.project_id).await else {
            return;
        };
        let Ok(config) = self.projects.resolved_config(project.id).await else {
            return;
        };
        if !config.gate.enabled {
            return;
        }
        let (state, text) = if retrying {
            (GateState::Pending, format!("queued again: {message}"))
        } else {
            (GateState::Errored, format!("the review failed: {message}"))
        };
        let review = self
            .reviews
            .find_for_mr(task.project_id, task.mr_iid)
            .await
            .ok()
            .flatten();
        let Some(sha) = review
            .as_ref()
            .map(|r| r.head_commit_sha.clone())
            .or_else(|| task.head_sha.clone())
        else {
            return;
        };
        self.post_gate(
            (platform.as_ref(), &project),
            &sha,
            (state, &text),
            review.map(|r| r.id),
        )
        .await;
    }
}

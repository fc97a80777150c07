//! The rules applied to platform events (the contract's Events section): which
//! events queue a review, which are only acknowledged, and the hostA assignment.

use super::ServiceError;
use super::ai_configs::AiConfigService;
use super::budgets::Budgets;
use super::conversations::{ConversationService, Heard};
use super::feedback::FeedbackService;
use super::tasks::{Enqueued, TaskService};
use crate::model::BudgetStop;
use crate::model::ProjectId;
use crate::model::{
    CommentEvent, FeedbackEvent, InstallationEvent, MergeRequestEvent, MrAction, NewReviewTask,
    PlatformType, Project, TriggeredBy, WebhookEvent,
};
use crate::ports::{DeliveryLog, ProjectRepository, SettingsRepository};
use crate::review::commands::{self, Addressing, Command, Said};
use crate::review::markers::comment_fingerprint;
use std::sync::Arc;
use uuid::Uuid;

pub use super::tasks::DEFAULT_MAX_ATTEMPTS;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum IntakeOutcome {
    Queued {
        task_id: Uuid,
    },
    /// A comment that may speak to reviewd: its answer is queued (the task
    /// decides whether it is for reviewd, and answers once).
    Answering {
        task_id: Uuid,
    },
    /// An active task already covers this MR head (a redelivery or a repeat).
    AlreadyQueued {
        task_id: Uuid,
    },
    /// Acknowledged, not acted on; the reason is returned to the platform.
    Ignored(String),
    /// The task could not be queued: the platform should retry (HTTP 500).
    QueueFailed {
        task_id: Uuid,
    },
}

/// Assignment to apply on hostA after an MR was opened or reopened.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AssignmentPlan {
    pub project_id: ProjectId,
    pub iid: i64,
    pub assignee_ids: Vec<String>,
    pub reviewer_ids: Vec<String>,
}

/// What the webhook's handler does after answering, off the request's path.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FollowUp {
    pub assignment: Option<AssignmentPlan>,
    /// An automatic review stopped by the project's budget, to announce.
    pub budget_stop: Option<BudgetStop>,
    /// A merge request (project, iid) whose threads to read for feedback: a
    /// reply was made in one, and the payload does not say to which comment.
    pub read_feedback: Option<(ProjectId, i64)>,
    /// A GitHub App installation that changed, for the configs whose secret
    /// signed the delivery: their project lists are brought up to date.
    pub installation: Option<(Vec<Uuid>, InstallationEvent)>,
    /// A review task just queued: its commit's merge gate goes `pending`.
    pub gate_pending: Option<Uuid>,
}

impl From<Option<AssignmentPlan>> for FollowUp {
    fn from(assignment: Option<AssignmentPlan>) -> Self {
        Self {
            assignment,
            ..Self::default()
        }
    }
}

/// A platform delivery id, for deduplication.
#[derive(Debug, Clone, Copy)]
pub struct DeliveryRef<'a> {
    pub platform: PlatformType,
    pub id: &'a str,
}

pub struct WebhookIntake {
    projects: Arc<dyn ProjectRepository>,
    settings: Arc<dyn SettingsRepository>,
    tasks: Arc<TaskService>,
    deliveries: Arc<dyn DeliveryLog>,
    ai: Option<Arc<AiConfigService>>,
    budgets: Option<Arc<Budgets>>,
    feedback: Option<Arc<FeedbackService>>,
    talk: Option<Arc<ConversationService>>,
}

/// Whether a comment asks for a review of the new commits: one of the contract's review
/// commands (`/review`), `/reviewd review` or `@<bot> review` on a line of its author's.
/// The other commands are read by the same parser ([`commands::read`]).
#[must_use]
pub fn is_review_command(body: &str, commands: &[String]) -> bool {
    let to = Addressing {
        bot_username: None,
        review_commands: commands,
    };
    matches!(
        commands::read(body, to),
        Some(Said::Command(Command::Review { full: false }))
    )
}

impl WebhookIntake {
    pub fn new(
        projects: Arc<dyn ProjectRepository>,
        settings: Arc<dyn SettingsRepository>,
        tasks: Arc<TaskService>,
        deliveries: Arc<dyn DeliveryLog>,
    ) -> Self {
        Self {
            projects,
            settings,
            tasks,
            deliveries,
            ai: None,
            budgets: None,
            feedback: None,
            talk: None,
        }
    }

    /// Hears commands, mentions and replies in threads, and keeps to what they
    /// set (a paused or ignored MR).
    #[must_use]
    pub fn with_conversations(mut self, talk: Arc<ConversationService>) -> Self {
        self.talk = Some(talk);
        self
    }

    /// Why the MR is not to be reviewed, by what the team told reviewd in it.
    async fn held_back(
        &self,
        project: &Project,
        iid: i64,
        automatic: bool,
    ) -> Result<Option<String>, ServiceError> {
        let Some(talk) = &self.talk else {
            return Ok(None);
        };
        let controls = talk.controls(project.id, iid).await?;
        let by = controls.changed_by.as_deref().unwrap_or("someone");
        Ok(if controls.ignored {
            Some(format!(
                "this merge request is ignored (`/reviewd ignore` by {by})"
            ))
        } else if automatic && controls.paused {
            Some(format!(
                "automatic reviews of this merge request are paused (`/reviewd pause` by {by})"
            ))
        } else {
            None
        })
    }

    /// Records the feedback on reviewd's comments that webhooks bring.
    #[must_use]
    pub fn with_feedback(mut self, feedback: Arc<FeedbackService>) -> Self {
        self.feedback = Some(feedback);
        self
    }

    /// Stops automatic reviews of projects whose monthly budget is spent.
    #[must_use]
    pub fn with_budgets(mut self, budgets: Arc<Budgets>) -> Self {
        self.budgets = Some(budgets);
        self
    }

    /// Names, in the log of each queued task, the AI configuration its review will
    /// use (the contract's "check AI config" step).
    #[must_use]
    pub fn checking_ai_with(mut self, ai: Arc<AiConfigService>) -> Self {
        self.ai = Some(ai);
        self
    }

    /// Applies the rules to an authenticated event. `config_ids` are the platform
    /// configs whose secret authenticated it: only their projects are considered.
    ///
    /// # Errors
    /// Store failures (the platform should retry).
    pub async fn handle(
        &self,
        config_ids: &[Uuid],
        delivery: Option<DeliveryRef<'_>>,
        event: WebhookEvent,
    ) -> Result<(IntakeOutcome, FollowUp), ServiceError> {
        if let Some(d) = delivery {
            let first = self
                .deliveries
                .first_seen(d.platform.as_str(), d.id)
                .await
                .map_err(|e| ServiceError::Unavailable(e.to_string()))?;
            if !first {
                return Ok((
                    IntakeOutcome::Ignored("duplicate delivery: already processed".into()),
                    FollowUp::default(),
                ));
            }
        }
        let result = self.route(config_ids, event).await;
        // A delivery that was not processed must stay processable when redelivered.
        let failed = matches!(result, Err(_) | Ok((IntakeOutcome::QueueFailed { .. }, _)));
        if let (true, Some(d)) = (failed, delivery)
            && let Err(e) = self.deliveries.forget(d.platform.as_str(), d.id).await
        {
            tracing::warn!(error = %e, "webhook.delivery_forget_failed");
        }
        result
    }

    async fn route(
        &self,
        config_ids: &[Uuid],
        event: WebhookEvent,
    ) -> Result<(IntakeOutcome, FollowUp), ServiceError> {
        match event {
            WebhookEvent::Ignored(reason) => {
                Ok((IntakeOutcome::Ignored(reason), FollowUp::default()))
            }
            WebhookEvent::MergeRequest(mr) => self.merge_request(config_ids, mr).await,
            WebhookEvent::Comment(comment) => self.comment(config_ids, comment).await,
            WebhookEvent::Feedback(event) => self.feedback(config_ids, &event).await,
            // Syncing lists the installation's repositories on the platform: after
            // the answer, so that GitHub's 10-second delivery timeout is kept.
            WebhookEvent::Installation(event) => Ok((
                IntakeOutcome::Ignored(format!(
                    "installation {} changed: the project list is updated after this answer",
                    event.installation_id
                )),
                FollowUp {
                    installation: Some((config_ids.to_vec(), event)),
                    ..FollowUp::default()
                },
            )),
        }
    }

    async fn find_project(
        &self,
        config_ids: &[Uuid],
        platform_type: PlatformType,
        platform_project_id: &str,
    ) -> Result<Option<Project>, ServiceError> {
        let candidates = self
            .projects
            .find_by_platform(platform_type, platform_project_id)
            .await?;
        Ok(candidates
            .into_iter()
            .find(|p| config_ids.contains(&p.platform_config_id)))
    }

    async fn merge_request(
        &self,
        config_ids: &[Uuid],
        mr: MergeRequestEvent,
    ) -> Result<(IntakeOutcome, FollowUp), ServiceError> {
        let ignored = |why: String| Ok((IntakeOutcome::Ignored(why), FollowUp::default()));
        match &mr.action {
            MrAction::AssignmentOnly => {
                return ignored("only assignees or reviewers changed".into());
            }
            MrAction::Other(action) => {
                return ignored(format!("action `{action}` does not trigger a review"));
            }
            MrAction::Opened | MrAction::Reopened | MrAction::Updated => {}
        }
        let Some(project) = self
            .find_project(config_ids, mr.platform_type, &mr.platform_project_id)
            .await?
        else {
            return ignored(format!("project {} is not synced", mr.platform_project_id));
        };
        if !project.enabled {
            return ignored("reviews are disabled for this project".into());
        }
        let global = self.settings.global().await?;
        let assignment = self.assignment(&project, &mr);
        if let Some(why) = self.held_back(&project, mr.iid, true).await? {
            return Ok((IntakeOutcome::Ignored(why), assignment.into()));
        }
        if !project.auto_review.unwrap_or(global.auto_review) {
            return Ok((
                IntakeOutcome::Ignored("auto-review is off for this project".into()),
                assignment.into(),
            ));
        }
        let send_to_platform = project.send_to_platform.unwrap_or(global.send_to_platform);
        if let Some(budgets) = &self.budgets
            && let Some((spent_usd, budget_usd, month)) = budgets.spent(&project).await?
        {
            let stop = BudgetStop {
                project_id: project.id,
                project_name: project.name.clone(),
                project_url: project.web_url.clone(),
                platform_type: project.platform_type,
                iid: mr.iid,
                budget_usd,
                spent_usd,
                month,
                note_on_mr: send_to_platform,
                review_command: global.review_commands.first().cloned(),
            };
            tracing::info!(project.id = %project.id, mr.iid = mr.iid, spent_usd, budget_usd, "webhook.budget_spent");
            return Ok((
                IntakeOutcome::Ignored(stop.reason()),
                FollowUp {
                    assignment,
                    budget_stop: Some(stop),
                    ..FollowUp::default()
                },
            ));
        }
        let outcome = self
            .enqueue(
                &project,
                mr.iid,
                mr.head_sha,
                TriggeredBy::Auto,
                global.send_to_platform,
            )
            .await?;
        let gate_pending = match &outcome {
            IntakeOutcome::Queued { task_id } if send_to_platform => Some(*task_id),
            _ => None,
        };
        Ok((
            outcome,
            FollowUp {
                assignment,
                gate_pending,
                ..FollowUp::default()
            },
        ))
    }

    /// A reaction or a resolution on a comment whose text the payload carries.
    /// It is not recorded from the payload: anyone can copy a marker into a
    /// thread of their own, and only the platform can say who wrote the thread's
    /// first comment. So a comment that carries one has its MR's threads read
    /// after the answer, as a reply does, where threads not started by reviewd's
    /// own account are left out.
    async fn feedback(
        &self,
        config_ids: &[Uuid],
        event: &FeedbackEvent,
    ) -> Result<(IntakeOutcome, FollowUp), ServiceError> {
        let ignored = |why: String| Ok((IntakeOutcome::Ignored(why), FollowUp::default()));
        if self.feedback.is_none() {
            return ignored("feedback is not collected".into());
        }
        if comment_fingerprint(&event.comment_body).is_none() {
            return ignored("not one of reviewd's comments".into());
        }
        tracing::info!(mr.iid = event.iid, kind = ?event.kind, "webhook.feedback");
        self.read_threads_after(
            config_ids,
            (event.platform_type, &event.platform_project_id, event.iid),
            "feedback on one of reviewd's comments: its thread is read after this answer",
            format!("project {} is not synced", event.platform_project_id),
        )
        .await
    }

    /// A reply in a thread, not a command: the MR's threads are read after the
    /// answer, when the reply may judge one of reviewd's comments.
    async fn reply(
        &self,
        config_ids: &[Uuid],
        comment: &CommentEvent,
    ) -> Result<(IntakeOutcome, FollowUp), ServiceError> {
        let ignored = |why: &str| Ok((IntakeOutcome::Ignored(why.into()), FollowUp::default()));
        // reviewd's own comments carry a marker: posting them judges nothing.
        if !comment.in_thread
            || self.feedback.is_none()
            || comment_fingerprint(&comment.body).is_some()
        {
            return ignored("comment holds no review command");
        }
        self.read_threads_after(
            config_ids,
            (
                comment.platform_type,
                &comment.platform_project_id,
                comment.iid,
            ),
            "comment holds no review command; its thread is read for feedback",
            "comment holds no review command".into(),
        )
        .await
    }

    /// Answers `answer` and reads the MR's threads after it, when the event's
    /// project is synced under one of these configs; else answers `unsynced`.
    async fn read_threads_after(
        &self,
        config_ids: &[Uuid],
        (platform_type, platform_project_id, iid): (PlatformType, &str, i64),
        answer: &str,
        unsynced: String,
    ) -> Result<(IntakeOutcome, FollowUp), ServiceError> {
        let Some(project) = self
            .find_project(config_ids, platform_type, platform_project_id)
            .await?
        else {
            return Ok((IntakeOutcome::Ignored(unsynced), FollowUp::default()));
        };
        Ok((
            IntakeOutcome::Ignored(answer.into()),
            FollowUp {
                read_feedback: Some((project.id, iid)),
                ..FollowUp::default()
            },
        ))
    }

    async fn comment(
        &self,
        config_ids: &[Uuid],
        comment: CommentEvent,
    ) -> Result<(IntakeOutcome, FollowUp), ServiceError> {
        let global = self.settings.global().await?;
        if !comment.may_command || !is_review_command(&comment.body, &global.review_commands) {
            return self.conversation(config_ids, &comment).await;
        }
        let ignored = |why: String| Ok((IntakeOutcome::Ignored(why), FollowUp::default()));
        let Some(project) = self
            .find_project(
                config_ids,
                comment.platform_type,
                &comment.platform_project_id,
            )
            .await?
        else {
            return ignored(format!(
                "project {} is not synced",
                comment.platform_project_id
            ));
        };
        if !project.enabled {
            return ignored("reviews are disabled for this project".into());
        }
        if let Some(why) = self.held_back(&project, comment.iid, false).await? {
            // Whoever asked is told why, in the MR, by the command's answer.
            if comment.note.is_some() && self.talk.is_some() {
                return self.conversation(config_ids, &comment).await;
            }
            return ignored(why);
        }
        // A command is a manual trigger: it runs even with auto-review off.
        let outcome = self
            .enqueue(
                &project,
                comment.iid,
                comment.head_sha,
                TriggeredBy::Manual,
                global.send_to_platform,
            )
            .await?;
        Ok((outcome, FollowUp::default()))
    }

    /// A comment that is no review command: a conversation with reviewd when it
    /// may be one (its answer queued), and a reply in a thread is also read for
    /// feedback after the answer.
    async fn conversation(
        &self,
        config_ids: &[Uuid],
        comment: &CommentEvent,
    ) -> Result<(IntakeOutcome, FollowUp), ServiceError> {
        let (Some(talk), Some(_)) = (&self.talk, &comment.note) else {
            return self.reply(config_ids, comment).await;
        };
        let Some(project) = self
            .find_project(
                config_ids,
                comment.platform_type,
                &comment.platform_project_id,
            )
            .await?
            .filter(|p| p.enabled)
        else {
            return self.reply(config_ids, comment).await;
        };
        let outcome = match talk.hear(&project, comment).await? {
            Heard::NotForUs => return self.reply(config_ids, comment).await,
            Heard::Queued { task_id } => IntakeOutcome::Answering { task_id },
            Heard::QueueFailed { task_id } => IntakeOutcome::QueueFailed { task_id },
            Heard::AlreadyAnswered => {
                IntakeOutcome::Ignored("this comment was answered already".into())
            }
        };
        let (_, follow_up) = self.reply(config_ids, comment).await?;
        Ok((outcome, follow_up))
    }

    async fn enqueue(
        &self,
        project: &Project,
        iid: i64,
        head_sha: Option<String>,
        triggered_by: TriggeredBy,
        global_send: bool,
    ) -> Result<IntakeOutcome, ServiceError> {
        // The review resolves its configuration again when it runs (it may change
        // meanwhile). A built-in one without PROVIDERA_ENDPOINT does not stop the task:
        // its review fails saying what to configure, where the task can be retried.
        if let Some(ai) = &self.ai {
            match ai.target(project.ai_config_id).await {
                Ok(target) => {
                    // Debug: a line of every webhook's four, and the review logs its
                    // configuration again when it runs.
                    tracing::debug!(project.id = %project.id, mr.iid = iid, ai_config = %target.name, ai.model = %target.model, configured = target.endpoint.is_some(), "webhook.ai_config_checked");
                }
                Err(e) => {
                    tracing::warn!(project.id = %project.id, mr.iid = iid, error = %e, "webhook.ai_config_unchecked");
                }
            }
        }
        let task = NewReviewTask {
            triggered_by,
            project_id: project.id,
            mr_iid: iid,
            head_sha,
            send_to_platform: project.send_to_platform.unwrap_or(global_send),
            template_id: project.template_id,
            requested_by: None,
            max_attempts: DEFAULT_MAX_ATTEMPTS,
            conversation_id: None,
            full_review: false,
        };
        Ok(match self.tasks.enqueue(task).await? {
            Enqueued::Queued(t) => IntakeOutcome::Queued { task_id: t.id },
            Enqueued::AlreadyActive(t) => IntakeOutcome::AlreadyQueued { task_id: t.id },
            Enqueued::QueueFailed(t) => IntakeOutcome::QueueFailed { task_id: t.id },
        })
    }

    /// hostA open/reopen: the author as assignee (when the project says so) and the
    /// project's default reviewers.
    fn assignment(&self, project: &Project, mr: &MergeRequestEvent) -> Option<AssignmentPlan> {
        let opening = matches!(mr.action, MrAction::Opened | MrAction::Reopened);
        if mr.platform_type != PlatformType::Gitlab || !opening {
            return None;
        }
        let assignee_ids: Vec<String> = mr
            .author_id
            .clone()
            .filter(|_| project.auto_assign_author)
            .into_iter()
            .collect();
        let reviewer_ids = project.default_reviewer_ids.clone();
        (!assignee_ids.is_empty() || !reviewer_ids.is_empty()).then_some(AssignmentPlan {
            project_id: project.id,
            iid: mr.iid,
            assignee_ids,
            reviewer_ids,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::is_review_command;

    #[test]
    fn commands_match_whole_words_on_any_line() {
        let commands = vec!["/review".to_owned()];
        assert!(is_review_command("/review", &commands));
        assert!(is_review_command("  /review please  ", &commands));
        assert!(is_review_command("Thanks!\n/review", &commands));
        assert!(!is_review_command("/reviewed it", &commands));
        assert!(!is_review_command("please /review", &commands));
        assert!(!is_review_command("", &commands));
        assert!(is_review_command("/reviewd review", &commands));
        assert!(
            !is_review_command("> /review\nno thanks", &commands),
            "a quote is not a request"
        );
    }
}

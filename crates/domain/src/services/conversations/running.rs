//! Running a command said in a merge request, and the acknowledgement posted.

use super::ConversationService;
use super::talk::{Answer, Talk};
use crate::model::conversation::{ControlChange, LearningSource, NewLearning};
use crate::model::{NewReviewTask, TriggeredBy};
use crate::review::commands::{Command, HELP};
use crate::services::review_engine::Failure;
use crate::services::tasks::DEFAULT_MAX_ATTEMPTS;
use crate::services::tasks::Enqueued;

/// Longest lesson kept, in characters (the store's bound).
const LESSON_CHARS: usize = 2_000;

impl ConversationService {
    pub(super) async fn run_command(
        &self,
        talk: &Talk,
        command: Command,
    ) -> Result<Answer, Failure> {
        let c = &talk.conversation;
        let (project, iid, by) = (talk.project.id, c.mr_iid, c.author.username.as_str());
        let controls = &self.parts.conversations;
        Ok(Answer::says(match command {
            Command::Help => HELP.to_owned(),
            Command::Unknown(word) => {
                let word: String = word.chars().filter(|c| *c != '`').take(40).collect();
                format!("I don't know `{word}`.\n\n{HELP}")
            }
            Command::Pause => {
                controls
                    .change_controls(project, iid, ControlChange::Pause, by)
                    .await?;
                "Automatic reviews of this merge request are paused. `/reviewd resume` starts them again; `/reviewd review` still asks for one.".to_owned()
            }
            Command::Resume => {
                controls
                    .change_controls(project, iid, ControlChange::Resume, by)
                    .await?;
                "Automatic reviews of this merge request are on again.".to_owned()
            }
            Command::Ignore => {
                controls
                    .change_controls(project, iid, ControlChange::Ignore, by)
                    .await?;
                "reviewd will not review this merge request again.".to_owned()
            }
            Command::Remember(lesson) => {
                let text: String = lesson.trim().chars().take(LESSON_CHARS).collect();
                self.parts
                    .learnings
                    .add_learning(NewLearning {
                        project_id: project,
                        text: text.clone(),
                        source: LearningSource::Command,
                        author: Some(by.to_owned()),
                        mr_iid: Some(iid),
                    })
                    .await?;
                let quoted: Vec<String> = text.lines().map(|l| format!("> {l}")).collect();
                format!(
                    "Noted for this project's reviews:\n\n{}\n\nThe project's learnings can be edited in the dashboard.",
                    quoted.join("\n")
                )
            }
            Command::Review { full } => return self.queue_review(talk, full).await,
            Command::Ask(question) => return self.answer_question_text(talk, &question).await,
            Command::Describe => return self.describe(talk).await,
        }))
    }

    /// `review` and `review full`: a review task, as a person asking for one gets.
    async fn queue_review(&self, talk: &Talk, full: bool) -> Result<Answer, Failure> {
        let c = &talk.conversation;
        if talk.controls.ignored {
            return Ok(Answer::says(
                "This merge request is ignored (`/reviewd ignore`): reviewd does not review it.",
            ));
        }
        if !talk.project.enabled {
            return Ok(Answer::says("Reviews are turned off for this project."));
        }
        let mr = talk
            .platform
            .get_merge_request(&talk.target, c.mr_iid)
            .await?;
        let global = self.parts.settings.global().await?;
        let task = NewReviewTask {
            triggered_by: TriggeredBy::Manual,
            project_id: talk.project.id,
            mr_iid: c.mr_iid,
            head_sha: mr.head_sha,
            send_to_platform: talk
                .project
                .send_to_platform
                .unwrap_or(global.send_to_platform),
            template_id: talk.project.template_id,
            requested_by: None,
            max_attempts: DEFAULT_MAX_ATTEMPTS,
            conversation_id: None,
            full_review: full,
        };
        let said = match self.parts.tasks.enqueue(task).await? {
            // That one reviews only what changed: the person is told to ask again.
            Enqueued::AlreadyActive(_) if full => {
                "A review of this merge request's head is already under way; say `review full` again when it is done to have every file reviewed again."
            }
            Enqueued::AlreadyActive(_) => {
                "A review of this merge request's head is already under way."
            }
            // Recorded: the sweep queues a task its queue missed.
            Enqueued::Queued(_) | Enqueued::QueueFailed(_) if full => {
                "A full review of this merge request (every file again) is queued."
            }
            Enqueued::Queued(_) | Enqueued::QueueFailed(_) => {
                "A review of the new commits is queued."
            }
        };
        Ok(Answer::says(said))
    }
}

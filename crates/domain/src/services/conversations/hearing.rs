//! The task's part: whether and what to answer (whether it speaks to reviewd;
//! who wrote it and the rate limits are [`super::guard`]'s), then the command or
//! the model's answer.

use super::ConversationService;
use super::posting::{answered, ignored};
use super::talk::{Asked, Talk};
use crate::model::ReviewTask;
use crate::model::conversation::ConversationStatus;
use crate::model::diff::CommentThread;
use crate::ports::PlatformError;
use crate::review::commands::{self, Addressing, Said};
use crate::review::markers;
use crate::review::standing::Hearing;
use crate::services::review_engine::Failure;

impl ConversationService {
    /// Answers the conversation of `task` (a queued task with a conversation),
    /// unless it was answered already (an attempt that died after posting leaves
    /// the answer's marker on the MR, and it is recorded rather than posted again).
    pub(crate) async fn answer(&self, task: &ReviewTask, worker: &str) -> Result<(), Failure> {
        let Some(id) = task.conversation_id else {
            return Err(Failure::permanent("the task answers no conversation"));
        };
        let conversation = self.parts.conversations.get(id).await?;
        if conversation.status != ConversationStatus::Queued {
            return Ok(());
        }
        let (project, platform) = self.parts.projects.with_platform(task.project_id).await?;
        let target = project.platform_ref();
        let bot = self.bot_name(&project, platform.as_ref()).await?;
        let controls = self
            .parts
            .conversations
            .controls(project.id, conversation.mr_iid)
            .await?;
        let talk = Talk {
            conversation,
            project,
            platform,
            target,
            bot,
            controls,
        };
        let Some(asked) = self.asked(&talk).await? else {
            return self.end(&talk, ignored("not addressed to reviewd")).await;
        };
        // Comments not for reviewd, and those it ignores, cost no more platform
        // calls than this (a public repository's outsiders can write many).
        let hearing = self.hearing(&talk).await?;
        if matches!(hearing, Hearing::Ignore) {
            return self
                .end(
                    &talk,
                    ignored("a bot, reviewd itself, or an outsider (refused before, or the project chose silence)"),
                )
                .await;
        }
        // An attempt that died after posting left its answer's marker on the MR.
        let c = &talk.conversation;
        let existing = talk.platform.list_comments(&talk.target, c.mr_iid).await?;
        if let Some(posted) = markers::answered(&existing, &c.note_id) {
            tracing::info!(conversation.id = %id, "conversation.answer_found_posted");
            let end = answered(&posted.body, Some(posted.id.clone()));
            self.parts.conversations.finish(id, end).await?;
            return Ok(());
        }
        if matches!(hearing, Hearing::Refuse) {
            return self.refuse(&talk, task, worker).await;
        }
        if let Some(why) = self.over_limit(&talk).await? {
            return self.end(&talk, ignored(&why)).await;
        }
        let answer = match asked {
            Asked::Command(command) => self.run_command(&talk, command).await?,
            Asked::Question => self.answer_question(&talk, None).await?,
            Asked::InThread(thread) => self.answer_question(&talk, Some(&thread)).await?,
        };
        self.post(&talk, task, worker, answer).await
    }

    /// What the comment asks, read again knowing the bot's name; `None` when it
    /// is not for reviewd (a mention of someone else, a reply in another thread).
    async fn asked(&self, talk: &Talk) -> Result<Option<Asked>, Failure> {
        let c = &talk.conversation;
        let review_commands = self.parts.settings.global().await?.review_commands;
        let to = Addressing {
            bot_username: Some(&talk.bot),
            review_commands: &review_commands,
        };
        let said = commands::read(&c.body, to);
        if let Some(Said::Command(command)) = said {
            return Ok(Some(Asked::Command(command)));
        }
        // A reply or a mention in one of reviewd's threads is about its finding.
        if c.thread_id.is_some() {
            let thread = self.thread_of(talk).await?;
            if let Some(thread) = thread {
                return Ok(Some(Asked::InThread(Box::new(thread))));
            }
        }
        Ok(matches!(said, Some(Said::Mention)).then_some(Asked::Question))
    }

    /// The reviewd thread the comment is a reply in.
    async fn thread_of(&self, talk: &Talk) -> Result<Option<CommentThread>, Failure> {
        let c = &talk.conversation;
        let threads = match talk.platform.comment_threads(&talk.target, c.mr_iid).await {
            Ok(threads) => threads,
            Err(PlatformError::Unsupported(_)) => return Ok(None),
            Err(e) => return Err(e.into()),
        };
        Ok(threads
            .into_iter()
            .find(|t| t.replies.iter().any(|r| r.id == c.note_id)))
    }
}

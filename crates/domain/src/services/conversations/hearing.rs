//! The task's part: whether and what to answer, and posting the answer once.

use super::ConversationService;
use crate::model::conversation::{Conversation, ConversationEnd, ConversationStatus, MrControls};
use crate::model::diff::CommentThread;
use crate::model::{Project, ReviewTask};
use crate::ports::{HostingPlatform, PlatformError, ProjectRef};
use crate::review::commands::{self, Addressing, Command, Said};
use crate::review::markers;
use crate::review::standing::{self, Hearing, REFUSAL, Speaker, Standing};
use crate::services::review_engine::Failure;
use std::sync::Arc;

/// One conversation being answered, with what the task learnt about it.
pub(super) struct Talk {
    pub(super) conversation: Conversation,
    pub(super) project: Project,
    pub(super) platform: Arc<dyn HostingPlatform>,
    pub(super) target: ProjectRef,
    /// reviewd's own username on the platform.
    pub(super) bot: String,
    pub(super) controls: MrControls,
}

/// What the comment asks of reviewd.
pub(super) enum Asked {
    Command(Command),
    /// A mention outside reviewd's threads: a question about the MR.
    Question,
    /// A word in one of reviewd's threads: about its finding.
    InThread(Box<CommentThread>),
}

/// What the answer does besides being posted.
#[derive(Default)]
pub(super) struct Answer {
    pub(super) text: String,
    /// The thread's finding was conceded wrong: resolve the thread.
    pub(super) concede: bool,
}

impl Answer {
    pub(super) fn says(text: impl Into<String>) -> Self {
        Self {
            text: text.into(),
            concede: false,
        }
    }
}

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
        let existing = platform.list_comments(&target, conversation.mr_iid).await?;
        if let Some(posted) = markers::answered(&existing, &conversation.note_id) {
            tracing::info!(conversation.id = %id, "conversation.answer_found_posted");
            let end = answered(&posted.body, Some(posted.id.clone()));
            self.parts.conversations.finish(id, end).await?;
            return Ok(());
        }
        let bot = platform.token_identity().await?.username;
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
        match self.hearing(&talk).await? {
            Hearing::Listen => {}
            Hearing::Ignore => {
                return self
                    .end(
                        &talk,
                        ignored("a bot, reviewd itself, or an outsider refused before"),
                    )
                    .await;
            }
            Hearing::Refuse => {
                return self.refuse(&talk, task, worker).await;
            }
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

    async fn hearing(&self, talk: &Talk) -> Result<Hearing, Failure> {
        let author = &talk.conversation.author;
        let speaker = Speaker {
            username: &author.username,
            is_bot: author.is_bot,
        };
        // Bots first: no platform call for them.
        let is_self = author.username.eq_ignore_ascii_case(&talk.bot);
        if is_self || author.is_bot {
            return Ok(Hearing::Ignore);
        }
        let standing = match talk.platform.standing(&talk.target, author).await {
            Ok(s) => s,
            // Who cannot be checked is not let in.
            Err(PlatformError::Unsupported(_)) => Standing::Outsider,
            Err(e) => return Err(e.into()),
        };
        Ok(standing::hearing(
            speaker,
            standing,
            Some(&talk.bot),
            true,
            talk.controls.refused_at.is_some(),
        ))
    }

    /// One polite refusal per MR, however many outsiders ask at once.
    async fn refuse(&self, talk: &Talk, task: &ReviewTask, worker: &str) -> Result<(), Failure> {
        let first = self
            .parts
            .conversations
            .note_refusal(talk.project.id, talk.conversation.mr_iid)
            .await?;
        if !first {
            return self
                .end(talk, ignored("an outsider; refused once already"))
                .await;
        }
        self.post(talk, task, worker, Answer::says(REFUSAL)).await?;
        // Recorded as refused rather than answered.
        Ok(())
    }

    /// Why the MR or the author asked too much lately, if they did.
    async fn over_limit(&self, talk: &Talk) -> Result<Option<String>, Failure> {
        let c = &talk.conversation;
        let window =
            chrono::Duration::from_std(self.limits.window).unwrap_or(chrono::Duration::MAX);
        let since = self.parts.clock.now() - window;
        let recent = self
            .parts
            .conversations
            .recent(talk.project.id, c.mr_iid, &c.author.username, since, c.id)
            .await?;
        Ok(if recent.in_mr >= self.limits.per_mr {
            Some(format!(
                "rate limited: {} answers in this MR lately",
                recent.in_mr
            ))
        } else if recent.by_author >= self.limits.per_author {
            Some(format!(
                "rate limited: {} answers to {} lately",
                recent.by_author, c.author.username
            ))
        } else {
            None
        })
    }

    /// Posts the answer (in the comment's thread when it has one), unless the
    /// attempt is no longer this worker's, and records it.
    async fn post(
        &self,
        talk: &Talk,
        task: &ReviewTask,
        worker: &str,
        answer: Answer,
    ) -> Result<(), Failure> {
        let c = &talk.conversation;
        // The model's work can outlast the lease: post only while the attempt is ours.
        if !self
            .parts
            .task_records
            .renew_attempt(task.id, worker)
            .await?
        {
            return Ok(());
        }
        let mut body = answer.text.clone();
        body.push_str("\n\n");
        if answer.concede {
            body.push_str(markers::CONCEDED);
        }
        body.push_str(&markers::answer_marker(&c.note_id));
        let note_id = match &c.thread_id {
            Some(thread) => match talk
                .platform
                .reply_in_thread(&talk.target, c.mr_iid, thread, &body)
                .await
            {
                Ok(id) => id,
                Err(PlatformError::Unsupported(_) | PlatformError::NotFound(_)) => {
                    talk.platform
                        .post_comment(&talk.target, c.mr_iid, &body)
                        .await?
                }
                Err(e) => return Err(e.into()),
            },
            None => {
                talk.platform
                    .post_comment(&talk.target, c.mr_iid, &body)
                    .await?
            }
        };
        if answer.concede
            && let Some(thread) = &c.thread_id
        {
            self.concede(talk, thread).await;
        }
        let mut end = answered(&answer.text, Some(note_id));
        if answer.text == REFUSAL {
            end.status = ConversationStatus::Refused;
        }
        self.parts.conversations.finish(c.id, end).await?;
        tracing::info!(conversation.id = %c.id, mr.iid = c.mr_iid, "conversation.answered");
        Ok(())
    }

    /// Resolves the thread of a finding reviewd conceded, and records the verdict.
    /// Neither failing undoes the answer: the feedback pass reads the thread again.
    async fn concede(&self, talk: &Talk, thread: &str) {
        let c = &talk.conversation;
        if let Err(e) = talk
            .platform
            .resolve_thread(&talk.target, c.mr_iid, thread)
            .await
        {
            tracing::warn!(conversation.id = %c.id, error = %e, "conversation.resolve_failed");
        }
        if let Some(feedback) = &self.feedback
            && let Err(e) = feedback.collect(talk.project.id, c.mr_iid).await
        {
            tracing::warn!(conversation.id = %c.id, error = %e, "conversation.feedback_not_recorded");
        }
    }

    pub(super) async fn end(&self, talk: &Talk, end: ConversationEnd) -> Result<(), Failure> {
        tracing::info!(conversation.id = %talk.conversation.id, status = end.status.as_str(), detail = end.detail.as_deref().unwrap_or(""), "conversation.ended");
        self.parts
            .conversations
            .finish(talk.conversation.id, end)
            .await?;
        Ok(())
    }
}

fn answered(text: &str, note_id: Option<String>) -> ConversationEnd {
    ConversationEnd {
        status: ConversationStatus::Answered,
        answer: Some(without_markers(text)),
        answer_note_id: note_id,
        detail: None,
    }
}

fn ignored(why: &str) -> ConversationEnd {
    ConversationEnd {
        status: ConversationStatus::Ignored,
        answer: None,
        answer_note_id: None,
        detail: Some(why.to_owned()),
    }
}

/// An answer's text without the markers it was posted with.
fn without_markers(text: &str) -> String {
    crate::review::answer::postable(text)
}

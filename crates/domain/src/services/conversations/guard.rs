//! Who may be answered: bots and reviewd itself never, outsiders refused once per
//! MR (or silence, by the project's setting), and the rate limits per MR and per
//! person.

use super::ConversationService;
use super::posting::ignored;
use super::talk::{Answer, Talk};
use crate::model::ReviewTask;
use crate::ports::PlatformError;
use crate::review::standing::{self, Hearing, REFUSAL, Speaker, Standing};
use crate::services::review_engine::Failure;

impl ConversationService {
    pub(super) async fn hearing(&self, talk: &Talk) -> Result<Hearing, Failure> {
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
            talk.project.refuse_outsiders,
            talk.controls.refused_at.is_some(),
        ))
    }

    /// One polite refusal per MR, however many outsiders ask at once.
    pub(super) async fn refuse(
        &self,
        talk: &Talk,
        task: &ReviewTask,
        worker: &str,
    ) -> Result<(), Failure> {
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
    pub(super) async fn over_limit(&self, talk: &Talk) -> Result<Option<String>, Failure> {
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
}

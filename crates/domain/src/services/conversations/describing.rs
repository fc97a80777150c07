//! `describe`: the summary the model writes and the walkthrough of the files, in
//! reviewd's own section of the MR's description.

use super::ConversationService;
use super::replies::{SPENT, mr_diff};
use super::talk::{Answer, Talk};
use crate::ports::PlatformError;
use crate::review::answer::{self, Question};
use crate::review::describe;
use crate::services::review_engine::Failure;

impl ConversationService {
    /// `describe`: the summary and walkthrough section of the description.
    pub(super) async fn describe(&self, talk: &Talk) -> Result<Answer, Failure> {
        let Some((mr, diff)) = self.mr_for_model(talk).await? else {
            return Ok(Answer::says(SPENT));
        };
        let c = &talk.conversation;
        let q = Question {
            mr_title: &mr.title,
            mr_description: mr.description.as_deref(),
            code: Some(&mr_diff(&diff)),
            question: "Summarize what this merge request changes and why, in at most five sentences, for its description.",
            ..Question::default()
        };
        let reply = self.complete(talk, answer::prompt(&q)).await?;
        let summary = answer::read_reply(&reply).map_err(Failure::transient)?;
        let section = describe::section(&answer::postable(&summary.answer), &diff.files);
        let description = describe::merged(mr.description.as_deref(), &section);
        match talk
            .platform
            .set_description(&talk.target, c.mr_iid, &description)
            .await
        {
            Ok(()) => Ok(Answer::says(
                "The description's summary and walkthrough are written (in reviewd's own section; your text is kept).",
            )),
            Err(PlatformError::Unsupported(_)) => Ok(Answer::says(
                "This platform does not let reviewd edit descriptions.",
            )),
            Err(e) => Err(e.into()),
        }
    }
}

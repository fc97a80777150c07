//! The model's calls for answers: the project's AI configuration, its budget,
//! and each call logged against the MR's review (so that it counts in the
//! project's AI cost and budget).

use super::ConversationService;
use super::talk::Talk;
use crate::model::MergeRequest;
use crate::model::diff::MergeRequestDiff;
use crate::ports::{AiError, AiRequest};
use crate::review::answer;
use crate::services::review_engine::Failure;
use crate::services::review_engine::ai_log::AiCallLog;
use std::time::Instant;

impl ConversationService {
    /// The MR and its diff for a model call; `None` when the project's budget is
    /// spent (nothing is read then).
    pub(super) async fn mr_for_model(
        &self,
        talk: &Talk,
    ) -> Result<Option<(MergeRequest, MergeRequestDiff)>, Failure> {
        if let Some(b) = &self.budgets
            && b.spent(&talk.project).await?.is_some()
        {
            return Ok(None);
        }
        let iid = talk.conversation.mr_iid;
        let mr = talk.platform.get_merge_request(&talk.target, iid).await?;
        let diff = talk.platform.merge_request_diff(&talk.target, iid).await?;
        Ok(Some((mr, diff)))
    }

    /// One model call with the answer's system prompt (a fallback model when the
    /// configuration's fails), each call logged against the MR's review (so that
    /// it counts in the project's AI costs and budget).
    pub(super) async fn complete(&self, talk: &Talk, user: String) -> Result<String, Failure> {
        let config = self.parts.projects.resolved_config(talk.project.id).await?;
        let target = self.parts.ai.target(config.ai_config_id).await?;
        let chain = self.parts.ai.chain(&target).await.map_err(|e| {
            Failure::permanent(format!(
                "the AI configuration `{}` is unusable: {e}",
                target.name
            ))
        })?;
        let request = AiRequest {
            model: String::new(),
            system: answer::SYSTEM.to_owned(),
            shared: None,
            user,
            max_tokens: Some(1_500),
            temperature: Some(0.2),
            json_schema: None,
        };
        let review = self
            .parts
            .reviews
            .find_for_mr(talk.project.id, talk.conversation.mr_iid)
            .await
            .ok()
            .flatten();
        let log = AiCallLog {
            reviews: self.parts.reviews.as_ref(),
            review_id: review.map(|r| r.id),
        };
        let (request, log) = (&request, &log);
        let result = chain
            .first_answer(|link| async move {
                let request = AiRequest {
                    model: link.model.clone(),
                    ..request.clone()
                };
                let started = Instant::now();
                let result = link.provider.complete(&request).await;
                let error = result.as_ref().err().map(ToString::to_string);
                log.log(None, link, (result.as_ref().ok(), error), started.elapsed())
                    .await;
                result
            })
            .await;
        result.map(|c| c.content).map_err(|e| {
            let transient = matches!(e, AiError::Unavailable(_) | AiError::RateLimited { .. });
            if transient {
                Failure::transient(e.to_string())
            } else {
                Failure::permanent(e.to_string())
            }
        })
    }
}

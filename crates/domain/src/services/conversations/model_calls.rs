//! The model's calls for answers: the project's AI configuration, its budget,
//! and each call logged against the MR's review (so that it counts in the
//! project's AI cost and budget).

use super::ConversationService;
use super::talk::Talk;
use crate::model::MergeRequest;
use crate::model::diff::MergeRequestDiff;
use crate::model::review::AiCallRecord;
use crate::ports::AiRequest;
use crate::review::answer;
use crate::services::review_engine::Failure;

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

    /// One model call with the answer's system prompt, logged against the MR's
    /// review (so that it counts in the project's AI costs and budget).
    pub(super) async fn complete(&self, talk: &Talk, user: String) -> Result<String, Failure> {
        let config = self.parts.projects.resolved_config(talk.project.id).await?;
        let target = self.parts.ai.target(config.ai_config_id).await?;
        let provider = self.parts.ai.provider(&target).map_err(|e| {
            Failure::permanent(format!(
                "the AI configuration `{}` is unusable: {e}",
                target.name
            ))
        })?;
        let request = AiRequest {
            model: target.model.clone(),
            system: answer::SYSTEM.to_owned(),
            shared: None,
            user,
            max_tokens: Some(1_500),
            temperature: Some(0.2),
            json_schema: None,
        };
        let started = std::time::Instant::now();
        let result = provider.complete(&request).await;
        let review = self
            .parts
            .reviews
            .find_for_mr(talk.project.id, talk.conversation.mr_iid)
            .await
            .ok()
            .flatten();
        let (usage, model) = result
            .as_ref()
            .map_or((Default::default(), target.model.clone()), |c| {
                (c.usage, c.model.clone())
            });
        let record = AiCallRecord {
            review_id: review.map(|r| r.id),
            file_path: None,
            provider: provider.name().to_owned(),
            model,
            success: result.is_ok(),
            duration_ms: u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
            prompt_tokens: usage.prompt,
            completion_tokens: usage.completion,
            total_tokens: usage.total,
            cached_tokens: usage.cached,
            cost_usd: target.prices.cost_usd(usage.prompt, usage.completion),
            error_message: result.as_ref().err().map(ToString::to_string),
        };
        if let Err(e) = self.parts.reviews.log_ai_call(record).await {
            tracing::warn!(error = %e, "conversation.ai_log_failed");
        }
        result.map(|c| c.content).map_err(|e| {
            let transient = matches!(
                e,
                crate::ports::AiError::Unavailable(_) | crate::ports::AiError::RateLimited { .. }
            );
            if transient {
                Failure::transient(e.to_string())
            } else {
                Failure::permanent(e.to_string())
            }
        })
    }
}

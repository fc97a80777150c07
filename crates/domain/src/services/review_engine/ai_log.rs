//! Every model call recorded in the AI call log.

use crate::model::ReviewId;
use crate::model::review::AiCallRecord;
use crate::ports::{AiCompletion, ReviewRepository};
use crate::review::file_review::{CallRecorder, ModelCall};
use crate::review::model_chain::ChainLink;
use std::time::Duration;

/// The server's record of each model call: the AI log of the review.
pub(crate) struct AiCallLog<'a> {
    pub(crate) reviews: &'a dyn ReviewRepository,
    /// `None` for a conversation's answer on an MR never reviewed.
    pub(crate) review_id: Option<ReviewId>,
}

impl AiCallLog<'_> {
    /// One call of `by`: the model that was asked names the row and prices it, so a
    /// fallback's call costs what the fallback charges. An answer that came but was
    /// unusable (`error` beside a completion) is a failed call with its tokens.
    pub(crate) async fn log(
        &self,
        file_path: Option<&str>,
        by: &ChainLink,
        (completion, error): (Option<&AiCompletion>, Option<String>),
        elapsed: Duration,
    ) {
        let usage = completion.map(|c| c.usage).unwrap_or_default();
        let duration = completion.map_or(elapsed, |c| c.duration);
        let record = AiCallRecord {
            review_id: self.review_id,
            file_path: file_path.map(str::to_owned),
            provider: by.name.clone(),
            model: completion.map_or_else(|| by.model.clone(), |c| c.model.clone()),
            success: error.is_none(),
            duration_ms: u64::try_from(duration.as_millis()).unwrap_or(u64::MAX),
            prompt_tokens: usage.prompt,
            completion_tokens: usage.completion,
            total_tokens: usage.total,
            cached_tokens: usage.cached,
            cost_usd: by.prices.cost_usd(usage.prompt, usage.completion),
            error_message: error,
        };
        if let Err(e) = self.reviews.log_ai_call(record).await {
            tracing::warn!(error = %e, "review.ai_log_failed");
        }
    }
}

#[async_trait::async_trait]
impl CallRecorder for AiCallLog<'_> {
    async fn record(&self, call: ModelCall<'_>) {
        let outcome = (call.completion, call.error);
        self.log(Some(call.file_path), call.by, outcome, call.elapsed)
            .await;
    }
}

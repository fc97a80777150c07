//! Every model call recorded in the AI call log.

use crate::model::AiPrices;
use crate::model::ReviewId;
use crate::model::review::AiCallRecord;
use crate::ports::ReviewRepository;
use crate::review::file_review::{CallRecorder, ModelCall};

/// The server's record of each model call: the AI log of the review.
pub(super) struct AiCallLog<'a> {
    pub(super) reviews: &'a dyn ReviewRepository,
    pub(super) review_id: ReviewId,
    pub(super) provider: &'a str,
    pub(super) model: &'a str,
    /// The configuration's prices: the cost is computed here, once, as the call is logged.
    pub(super) prices: AiPrices,
}

#[async_trait::async_trait]
impl CallRecorder for AiCallLog<'_> {
    async fn record(&self, call: ModelCall<'_>) {
        let completion = call.completion;
        let duration = completion.map_or(call.elapsed, |c| c.duration);
        let prompt_tokens = completion.map_or(0, |c| c.usage.prompt);
        let completion_tokens = completion.map_or(0, |c| c.usage.completion);
        let record = AiCallRecord {
            review_id: Some(self.review_id),
            file_path: Some(call.file_path.to_owned()),
            provider: self.provider.to_owned(),
            model: completion.map_or_else(|| self.model.to_owned(), |c| c.model.clone()),
            success: call.error.is_none(),
            duration_ms: u64::try_from(duration.as_millis()).unwrap_or(u64::MAX),
            prompt_tokens,
            completion_tokens,
            total_tokens: completion.map_or(0, |c| c.usage.total),
            cached_tokens: completion.map_or(0, |c| c.usage.cached),
            cost_usd: self.prices.cost_usd(prompt_tokens, completion_tokens),
            error_message: call.error,
        };
        if let Err(e) = self.reviews.log_ai_call(record).await {
            tracing::warn!(error = %e, "review.ai_log_failed");
        }
    }
}

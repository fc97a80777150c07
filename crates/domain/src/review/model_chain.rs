//! The models a call may go to, in order: an AI configuration's own model, then its
//! fallbacks, each tried when the one before failed in a way another model may not
//! share (the provider down, rate limiting past its retries, the model withdrawn).
//! A bad key, a refused prompt or an unusable answer stops the chain: another model
//! would meet the same prompt, and a second key hides a first one's problem.

use crate::model::AiPrices;
use crate::ports::{AiError, AiProvider};
use std::sync::Arc;

/// One model of a chain: who sends the call, what it is asked for, what it costs.
#[derive(Clone)]
pub struct ChainLink {
    pub provider: Arc<dyn AiProvider>,
    /// The configuration's name, as the AI call log and reviews' `aiProvider` show it.
    pub name: String,
    pub model: String,
    pub prices: AiPrices,
}

impl std::fmt::Debug for ChainLink {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ChainLink")
            .field("name", &self.name)
            .field("model", &self.model)
            .finish_non_exhaustive()
    }
}

/// A configuration's model and its fallbacks; never empty.
#[derive(Debug, Clone)]
pub struct ModelChain {
    links: Vec<ChainLink>,
}

/// Whether another model may succeed where this failure happened.
#[must_use]
pub fn worth_another_model(error: &AiError) -> bool {
    matches!(
        error,
        AiError::Unavailable(_) | AiError::RateLimited { .. } | AiError::ModelNotFound(_)
    )
}

impl ModelChain {
    /// One model, no fallback (a runner's, the eval's).
    #[must_use]
    pub fn single(link: ChainLink) -> Self {
        Self { links: vec![link] }
    }

    /// `primary`, then each fallback in order.
    #[must_use]
    pub fn with_fallbacks(primary: ChainLink, fallbacks: Vec<ChainLink>) -> Self {
        let mut links = Vec::with_capacity(1 + fallbacks.len());
        links.push(primary);
        links.extend(fallbacks);
        Self { links }
    }

    /// The configuration's own model.
    #[must_use]
    pub fn primary(&self) -> &ChainLink {
        &self.links[0]
    }

    #[must_use]
    pub fn links(&self) -> &[ChainLink] {
        &self.links
    }

    /// `call` with each link in turn until one gives an answer or fails in a way
    /// another model would share; the last link's failure is the chain's.
    ///
    /// # Errors
    /// The failure of the link that ended the chain.
    pub async fn first_answer<'a, T, F, Fut>(&'a self, mut call: F) -> Result<T, AiError>
    where
        // A plain closure returning a future, not an async closure: the futures of
        // the callers stay `Send` (the higher-ranked bound of an async closure is
        // one the compiler cannot prove `Send` for across the worker's spawn).
        F: FnMut(&'a ChainLink) -> Fut,
        Fut: std::future::Future<Output = Result<T, AiError>>,
    {
        let mut outcome = Err(AiError::Unavailable("no model to ask".into()));
        for (i, link) in self.links.iter().enumerate() {
            outcome = call(link).await;
            match &outcome {
                Err(e) if worth_another_model(e) && i + 1 < self.links.len() => {
                    tracing::warn!(
                        model = %link.model,
                        config = %link.name,
                        next = %self.links[i + 1].model,
                        error = %e,
                        "ai.fallback"
                    );
                }
                _ => break,
            }
        }
        outcome
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ports::{AiCompletion, AiRequest};

    struct Silent;

    #[async_trait::async_trait]
    impl AiProvider for Silent {
        fn name(&self) -> &str {
            "silent"
        }
        async fn complete(&self, _: &AiRequest) -> Result<AiCompletion, AiError> {
            Err(AiError::Unavailable("never called".into()))
        }
        async fn check(&self) -> Result<(), AiError> {
            Ok(())
        }
    }

    fn chain(models: &[&str]) -> ModelChain {
        let link = |m: &&str| ChainLink {
            provider: Arc::new(Silent),
            name: format!("config {m}"),
            model: (*m).to_owned(),
            prices: AiPrices::default(),
        };
        let mut links: Vec<ChainLink> = models.iter().map(link).collect();
        let primary = links.remove(0);
        ModelChain::with_fallbacks(primary, links)
    }

    /// Runs the chain where each model fails as `fails` says, returning the
    /// models asked and the outcome.
    async fn run(
        models: &[&str],
        fails: impl Fn(&str) -> Option<AiError>,
    ) -> (Vec<String>, Result<String, AiError>) {
        let chain = chain(models);
        let mut asked = Vec::new();
        let outcome = chain
            .first_answer(|link| {
                asked.push(link.model.clone());
                let outcome = fails(&link.model).map_or_else(|| Ok(link.model.clone()), Err);
                std::future::ready(outcome)
            })
            .await;
        (asked, outcome)
    }

    #[tokio::test]
    async fn an_outage_a_rate_limit_or_a_missing_model_hands_the_call_on() {
        for error in [
            AiError::Unavailable("503".into()),
            AiError::RateLimited { retry_after: None },
            AiError::ModelNotFound("gone".into()),
        ] {
            let (asked, outcome) =
                run(&["big", "small"], |m| (m == "big").then(|| error.clone())).await;
            assert_eq!(asked, ["big", "small"], "{error}");
            assert_eq!(outcome.unwrap(), "small");
        }
    }

    #[tokio::test]
    async fn a_bad_key_a_refusal_or_an_unusable_answer_ends_the_chain() {
        for error in [
            AiError::Unauthorized,
            AiError::Rejected("policy".into()),
            AiError::InvalidResponse("not json".into()),
            AiError::ContextTooLong("too long".into()),
        ] {
            let (asked, outcome) =
                run(&["big", "small"], |m| (m == "big").then(|| error.clone())).await;
            assert_eq!(asked, ["big"], "{error}");
            assert_eq!(outcome.unwrap_err(), error);
        }
    }

    #[tokio::test]
    async fn when_every_model_fails_the_last_failure_is_the_chains() {
        let (asked, outcome) = run(&["a", "b", "c"], |m| {
            Some(AiError::Unavailable(format!("{m} down")))
        })
        .await;
        assert_eq!(asked, ["a", "b", "c"]);
        assert_eq!(outcome.unwrap_err(), AiError::Unavailable("c down".into()));
        let (asked, outcome) = run(&["a"], |_| None).await;
        assert_eq!(
            (asked, outcome.unwrap()),
            (vec!["a".to_owned()], "a".to_owned())
        );
    }
}

//! The AI provider: what a caller gets for each way the provider answers. A world
//! is the provider under test plus a way to script its provider's next answers (a
//! fake server for an HTTP adapter, the script itself for [`ScriptedAi`]).

use crate::fakes::ai::ScriptedAi;
use async_trait::async_trait;
use reviewd_domain::ports::{AiError, AiProvider, AiRequest};
use serde_json::json;
use std::time::Duration;

/// How the provider answers every call from now on, until scripted again.
#[derive(Debug, Clone)]
pub enum Next {
    /// `content`, reported as answered by `model`, with token usage.
    Answer { content: String, model: String },
    /// A well-formed answer without content.
    EmptyAnswer,
    /// The API key is refused (401).
    BadKey,
    /// Too many requests (429), retry after the hint.
    RateLimited { retry_after: Duration },
    /// A server error (5xx).
    Down,
    /// The model is unknown to the provider (OpenAI's 404 `model_not_found`).
    UnknownModel,
}

/// A provider and the means to script its answers.
#[async_trait]
pub trait AiWorld: Sync {
    fn provider(&self) -> &dyn AiProvider;

    async fn script(&self, next: Next);

    /// The last completion request as the provider received it.
    async fn last_request(&self) -> Option<AiRequest>;
}

pub async fn run(world: &impl AiWorld) {
    an_answer_carries_content_model_and_usage(world).await;
    a_refused_key_is_unauthorized(world).await;
    rate_limiting_is_reported_with_its_hint(world).await;
    a_server_error_is_unavailable(world).await;
    an_unknown_model_is_told_apart(world).await;
    an_answer_without_content_is_invalid(world).await;
    the_provider_recovers_once_answers_are_good(world).await;
}

fn request() -> AiRequest {
    AiRequest {
        model: "gpt-test".into(),
        system: "You review code.".into(),
        shared: Some("Merge request: Fix".into()),
        user: "File: src/lib.rs (modified)\n\n1 + fn main() {}".into(),
        max_tokens: Some(800),
        temperature: Some(0.25),
        json_schema: Some(("review".into(), json!({ "type": "object" }))),
    }
}

fn answer(content: &str) -> Next {
    Next::Answer {
        content: content.into(),
        model: "gpt-test-2026-01".into(),
    }
}

async fn complete_err(world: &impl AiWorld) -> AiError {
    world.provider().complete(&request()).await.unwrap_err()
}

async fn an_answer_carries_content_model_and_usage(world: &impl AiWorld) {
    world
        .script(answer(r#"{"summary":"ok","comments":[]}"#))
        .await;
    let done = world.provider().complete(&request()).await.unwrap();
    assert_eq!(done.content, r#"{"summary":"ok","comments":[]}"#);
    assert_eq!(done.model, "gpt-test-2026-01", "the model that answered");
    let usage = done.usage;
    assert!(usage.prompt > 0 && usage.completion > 0, "{usage:?}");
    assert_eq!(usage.total, usage.prompt + usage.completion);
    assert_eq!(world.last_request().await, Some(request()), "sent in full");
    world.provider().check().await.unwrap();
    assert!(!world.provider().name().is_empty());
}

async fn a_refused_key_is_unauthorized(world: &impl AiWorld) {
    world.script(Next::BadKey).await;
    assert_eq!(complete_err(world).await, AiError::Unauthorized);
    assert_eq!(world.provider().check().await, Err(AiError::Unauthorized));
}

async fn rate_limiting_is_reported_with_its_hint(world: &impl AiWorld) {
    // A hint the adapter waits out before giving up, and one too long to wait for.
    for retry_after in [Duration::ZERO, Duration::from_secs(3600)] {
        world.script(Next::RateLimited { retry_after }).await;
        let limited = AiError::RateLimited {
            retry_after: Some(retry_after),
        };
        assert_eq!(complete_err(world).await, limited);
        assert_eq!(world.provider().check().await, Err(limited));
    }
}

async fn a_server_error_is_unavailable(world: &impl AiWorld) {
    world.script(Next::Down).await;
    let err = complete_err(world).await;
    assert!(matches!(err, AiError::Unavailable(_)), "{err:?}");
    let err = world.provider().check().await.unwrap_err();
    assert!(matches!(err, AiError::Unavailable(_)), "{err:?}");
}

async fn an_unknown_model_is_told_apart(world: &impl AiWorld) {
    world.script(Next::UnknownModel).await;
    let err = complete_err(world).await;
    assert!(matches!(err, AiError::ModelNotFound(_)), "{err:?}");
}

async fn an_answer_without_content_is_invalid(world: &impl AiWorld) {
    world.script(Next::EmptyAnswer).await;
    let err = complete_err(world).await;
    assert!(matches!(err, AiError::InvalidResponse(_)), "{err:?}");
    world.provider().check().await.unwrap();
}

async fn the_provider_recovers_once_answers_are_good(world: &impl AiWorld) {
    world.script(Next::Down).await;
    complete_err(world).await;
    world.script(answer("fine")).await;
    let done = world.provider().complete(&request()).await.unwrap();
    assert_eq!(done.content, "fine");
}

/// The script is the provider's own.
#[async_trait]
impl AiWorld for ScriptedAi {
    fn provider(&self) -> &dyn AiProvider {
        self
    }

    async fn script(&self, next: Next) {
        self.set_outage(None);
        match next {
            Next::Answer { content, model } => {
                self.resolve_model_to(&model);
                self.answer_with(move |_| Ok(content.clone()));
            }
            Next::EmptyAnswer => self.answer_with(|_| Ok(String::new())),
            Next::BadKey => self.set_outage(Some(AiError::Unauthorized)),
            Next::RateLimited { retry_after } => self.set_outage(Some(AiError::RateLimited {
                retry_after: Some(retry_after),
            })),
            Next::Down => self.set_outage(Some(AiError::Unavailable("HTTP 503".into()))),
            Next::UnknownModel => self.set_outage(Some(AiError::ModelNotFound(
                "The model `gpt-test` does not exist".into(),
            ))),
        }
    }

    async fn last_request(&self) -> Option<AiRequest> {
        self.requests().pop()
    }
}

//! `PROVIDERA`: reviewd's `AiProvider` over an OpenAI-compatible Chat Completions
//! API (`POST {endpoint}/chat/completions`, bearer key), which also covers vLLM,
//! Ollama, LiteLLM and other servers that speak it. Structured output is requested
//! with `response_format: json_schema`.

use async_trait::async_trait;
use reviewd_domain::model::SecretString;
use reviewd_domain::ports::{AiCompletion, AiError, AiProvider, AiRequest, TokenUsage};
use reviewd_http::{HttpClient, HttpError};
use serde::Deserialize;
use serde_json::json;
use std::time::Instant;

pub struct OpenAiProvider {
    http: HttpClient,
    name: String,
    endpoint: String,
    api_key: Option<SecretString>,
}

impl OpenAiProvider {
    /// `endpoint` is the API base, e.g. `https://api.openai.com/v1`.
    #[must_use]
    pub fn new(
        http: HttpClient,
        name: &str,
        endpoint: &str,
        api_key: Option<SecretString>,
    ) -> Self {
        Self {
            http,
            name: name.to_owned(),
            endpoint: endpoint.trim_end_matches('/').to_owned(),
            api_key,
        }
    }
}

#[derive(Deserialize)]
struct ChatResponse {
    model: Option<String>,
    choices: Vec<Choice>,
    usage: Option<Usage>,
}

#[derive(Deserialize)]
struct Choice {
    message: Message,
    finish_reason: Option<String>,
}

#[derive(Deserialize)]
struct Message {
    content: Option<String>,
    refusal: Option<String>,
}

#[derive(Deserialize)]
struct Usage {
    prompt_tokens: Option<u32>,
    completion_tokens: Option<u32>,
    total_tokens: Option<u32>,
    /// OpenAI's prompt caching: how many prompt tokens were a cached prefix.
    prompt_tokens_details: Option<PromptTokensDetails>,
}

#[derive(Deserialize)]
struct PromptTokensDetails {
    cached_tokens: Option<u32>,
}

fn ai_error(err: HttpError) -> AiError {
    match err {
        HttpError::Status {
            rate_limited: true,
            retry_after,
            ..
        }
        | HttpError::Status {
            status: 429,
            retry_after,
            ..
        } => AiError::RateLimited { retry_after },
        HttpError::Status {
            status: 401 | 403, ..
        } => AiError::Unauthorized,
        // OpenAI reports an oversized prompt as a 400 with code context_length_exceeded.
        HttpError::Status {
            status: 400 | 413,
            message,
            ..
        } if message.contains("context") || message.contains("maximum") => {
            AiError::ContextTooLong(message)
        }
        // An unknown model is a 404: OpenAI's code `model_not_found`, Ollama's
        // "model ... not found"; a 404 about anything else (a wrong endpoint path,
        // "Cannot GET /v1/models") stays a refusal.
        HttpError::Status {
            status: 404,
            message,
            ..
        } if names_a_missing_model(&message) => AiError::ModelNotFound(message),
        HttpError::Status {
            status: 400 | 404 | 422,
            message,
            ..
        } => AiError::Rejected(message),
        HttpError::Status {
            status, message, ..
        } => AiError::Unavailable(format!("HTTP {status}: {message}")),
        HttpError::Timeout(d) => AiError::Unavailable(format!("no answer within {d:?}")),
        HttpError::Connect(e) | HttpError::Interrupted(e) => AiError::Unavailable(e),
        HttpError::Decode(e) => AiError::InvalidResponse(e),
        e @ HttpError::TooLarge(_) => AiError::InvalidResponse(e.to_string()),
    }
}

/// Whether a 404's message says the model is unknown.
fn names_a_missing_model(message: &str) -> bool {
    let m = message.to_lowercase();
    m.contains("model_not_found")
        || (m.contains("model") && (m.contains("not found") || m.contains("does not exist")))
}

#[async_trait]
impl AiProvider for OpenAiProvider {
    fn name(&self) -> &str {
        &self.name
    }

    async fn complete(&self, request: &AiRequest) -> Result<AiCompletion, AiError> {
        // The round's shared part is its own message between the system prompt and
        // the file's: the prefix that repeats across a round's calls, which
        // providers with prompt caching serve from their cache.
        let mut messages = vec![json!({ "role": "system", "content": request.system })];
        if let Some(shared) = &request.shared {
            messages.push(json!({ "role": "user", "content": shared }));
        }
        messages.push(json!({ "role": "user", "content": request.user }));
        let mut body = json!({
            "model": request.model,
            "messages": messages,
        });
        if let Some(max) = request.max_tokens {
            body["max_tokens"] = json!(max);
        }
        if let Some(t) = request.temperature {
            body["temperature"] = json!(t);
        }
        if let Some((name, schema)) = &request.json_schema {
            body["response_format"] = json!({
                "type": "json_schema",
                "json_schema": { "name": name, "schema": schema, "strict": true },
            });
        }
        let url = format!("{}/chat/completions", self.endpoint);
        let started = Instant::now();
        let response = self
            .http
            .send_repeatable(|c| {
                let r = c.post(&url).json(&body);
                match &self.api_key {
                    Some(key) => r.bearer_auth(key.expose()),
                    None => r,
                }
            })
            .await
            .map_err(ai_error)?;
        let parsed: ChatResponse = response.json().map_err(ai_error)?;
        let choice = parsed
            .choices
            .into_iter()
            .next()
            .ok_or_else(|| AiError::InvalidResponse("no choices".into()))?;
        if let Some(refusal) = choice.message.refusal {
            return Err(AiError::Rejected(format!("the model refused: {refusal}")));
        }
        if choice.finish_reason.as_deref() == Some("length") {
            return Err(AiError::InvalidResponse(
                "the answer was cut off at max_tokens".into(),
            ));
        }
        let content = choice
            .message
            .content
            .filter(|c| !c.trim().is_empty())
            .ok_or_else(|| AiError::InvalidResponse("empty content".into()))?;
        let usage = parsed.usage.map_or_else(TokenUsage::default, |u| {
            let prompt = u.prompt_tokens.unwrap_or(0);
            let completion = u.completion_tokens.unwrap_or(0);
            TokenUsage {
                prompt,
                completion,
                total: u.total_tokens.unwrap_or(prompt + completion),
                cached: u
                    .prompt_tokens_details
                    .and_then(|d| d.cached_tokens)
                    .unwrap_or(0)
                    .min(prompt),
            }
        });
        Ok(AiCompletion {
            content,
            model: parsed.model.unwrap_or_else(|| request.model.clone()),
            usage,
            duration: started.elapsed(),
        })
    }

    async fn check(&self) -> Result<(), AiError> {
        let url = format!("{}/models", self.endpoint);
        self.http
            .send(|c| {
                let r = c.get(&url);
                match &self.api_key {
                    Some(key) => r.bearer_auth(key.expose()),
                    None => r,
                }
            })
            .await
            .map(|_| ())
            .map_err(ai_error)
    }
}

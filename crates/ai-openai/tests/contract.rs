//! The AI provider contract suite (`reviewd_testkit::contract::ai`) on the adapter,
//! against a fake OpenAI-compatible server answering as scripted.
#![expect(
    clippy::unwrap_used,
    reason = "tests: a panic fails the test, with its message"
)]

use async_trait::async_trait;
use reviewd_ai_openai::OpenAiProvider;
use reviewd_domain::model::SecretString;
use reviewd_domain::ports::{AiProvider, AiRequest};
use reviewd_http::{HttpClient, RetryPolicy};
use reviewd_testkit::contract::ai::{AiWorld, Next};
use serde_json::{Value, json};
use wiremock::matchers::{header, method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

struct OpenAiWorld {
    server: MockServer,
    provider: OpenAiProvider,
}

impl OpenAiWorld {
    async fn start() -> Self {
        let server = MockServer::start().await;
        let http = HttpClient::new(RetryPolicy::fast()).unwrap();
        let endpoint = format!("{}/v1", server.uri());
        let key = Some(SecretString::new("sk-test"));
        let provider = OpenAiProvider::new(http, "providerA", &endpoint, key);
        Self { server, provider }
    }

    /// Chat completions answer `content`; the models list answers too.
    async fn answer(&self, content: Value, model: &str) {
        let completion = json!({
            "id": "chatcmpl-1", "object": "chat.completion", "created": 1_800_000_000, "model": model,
            "choices": [{ "index": 0, "message": { "role": "assistant", "content": content, "refusal": null }, "finish_reason": "stop" }],
            "usage": { "prompt_tokens": 120, "completion_tokens": 30, "total_tokens": 150 }
        });
        let models = json!({ "object": "list", "data": [{ "id": model, "object": "model" }] });
        for (verb, route, body) in [
            ("POST", "/v1/chat/completions", completion),
            ("GET", "/v1/models", models),
        ] {
            Mock::given(method(verb))
                .and(path(route))
                .and(header("authorization", "Bearer sk-test"))
                .respond_with(ResponseTemplate::new(200).set_body_json(body))
                .mount(&self.server)
                .await;
        }
    }

    /// Every request gets `response`.
    async fn fail(&self, response: ResponseTemplate) {
        Mock::given(wiremock::matchers::any())
            .respond_with(response)
            .mount(&self.server)
            .await;
    }
}

/// The request as the adapter sent it, read back into the port's terms.
fn sent(body: &Value) -> AiRequest {
    let message = |role: &str| {
        let messages = body["messages"].as_array().into_iter().flatten();
        let found = messages
            .filter(|m| m["role"] == role)
            .find_map(|m| m["content"].as_str());
        found.unwrap_or_default().to_owned()
    };
    let format = &body["response_format"];
    // The round's shared part is a user message of its own before the file's.
    let users: Vec<String> = body["messages"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|m| m["role"] == "user")
        .filter_map(|m| m["content"].as_str().map(str::to_owned))
        .collect();
    let (shared, user) = match users.as_slice() {
        [shared, user] => (Some(shared.clone()), user.clone()),
        _ => (None, message("user")),
    };
    AiRequest {
        model: body["model"].as_str().unwrap_or_default().to_owned(),
        system: message("system"),
        shared,
        user,
        max_tokens: body["max_tokens"]
            .as_u64()
            .map(|n| u32::try_from(n).unwrap()),
        temperature: body["temperature"].as_f64(),
        json_schema: (format["type"] == "json_schema").then(|| {
            let schema = &format["json_schema"];
            (
                schema["name"].as_str().unwrap().to_owned(),
                schema["schema"].clone(),
            )
        }),
    }
}

#[async_trait]
impl AiWorld for OpenAiWorld {
    fn provider(&self) -> &dyn AiProvider {
        &self.provider
    }

    async fn script(&self, next: Next) {
        self.server.reset().await;
        match next {
            Next::Answer { content, model } => self.answer(json!(content), &model).await,
            Next::EmptyAnswer => self.answer(Value::Null, "gpt-test").await,
            Next::BadKey => {
                let error = json!({ "error": { "message": "Incorrect API key provided", "code": "invalid_api_key" } });
                self.fail(ResponseTemplate::new(401).set_body_json(error))
                    .await;
            }
            Next::RateLimited { retry_after } => {
                let seconds = retry_after.as_secs().to_string();
                let limited = ResponseTemplate::new(429).insert_header("retry-after", seconds);
                self.fail(limited).await;
            }
            Next::Down => self.fail(ResponseTemplate::new(503)).await,
            Next::UnknownModel => {
                let error = json!({ "error": {
                    "message": "The model `gpt-test` does not exist or you do not have access to it.",
                    "type": "invalid_request_error", "param": null, "code": "model_not_found" } });
                self.fail(ResponseTemplate::new(404).set_body_json(error))
                    .await;
            }
        }
    }

    async fn last_request(&self) -> Option<AiRequest> {
        let requests = self.server.received_requests().await?;
        let last = requests
            .iter()
            .rev()
            .find(|r| r.method.as_str() == "POST")?;
        Some(sent(&last.body_json().ok()?))
    }
}

#[tokio::test]
async fn ai_provider() {
    reviewd_testkit::contract::ai::run(&OpenAiWorld::start().await).await;
}

//! An AI provider whose answers the test writes, with the real adapter's reading of
//! an answer (`crates/ai-openai`): blank content is `InvalidResponse`, the reported
//! model may differ from the requested alias, and usage is counted on every answer.

use async_trait::async_trait;
use reviewd_domain::model::AiTarget;
use reviewd_domain::ports::{
    AiCompletion, AiError, AiProvider, AiProviders, AiRequest, Clock, TokenUsage,
};
use std::collections::VecDeque;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

/// Answers a request: its content, or the failure the provider reports.
pub type AnswerRule = dyn Fn(&AiRequest) -> Result<String, AiError> + Send + Sync;

/// A review with nothing to say, in the shape `review::output::schema` asks for.
pub const NO_FINDINGS: &str = r#"{"summary":"Looks good.","comments":[]}"#;

struct Script {
    rule: Arc<AnswerRule>,
    /// One-off outcomes, taken before the rule applies.
    queued: VecDeque<Result<String, AiError>>,
    /// A failure of every call, `check` included, until cleared.
    outage: Option<AiError>,
    /// What the provider says answered (providers resolve aliases).
    model: Option<String>,
    requests: Vec<AiRequest>,
}

/// A scripted [`AiProvider`]. By default it answers [`NO_FINDINGS`] to everything;
/// [`ScriptedAi::answer_with`] sets a rule on the request, [`ScriptedAi::push_answer`]
/// and [`ScriptedAi::fail_next`] queue one-off outcomes ahead of it, and
/// [`ScriptedAi::set_outage`] fails everything. Every request is recorded.
///
/// Each call takes `latency`, reported as the completion's duration and, with a
/// clock ([`ScriptedAi::on_clock`]), waited on it (a [`crate::fakes::FakeClock`]
/// advances at once).
pub struct ScriptedAi {
    name: String,
    latency: Duration,
    clock: Option<Arc<dyn Clock>>,
    script: Mutex<Script>,
}

impl Default for ScriptedAi {
    fn default() -> Self {
        Self {
            name: "providerA".into(),
            latency: Duration::from_millis(200),
            clock: None,
            script: Mutex::new(Script {
                rule: Arc::new(|_| Ok(NO_FINDINGS.to_owned())),
                queued: VecDeque::new(),
                outage: None,
                model: None,
                requests: Vec::new(),
            }),
        }
    }
}

impl ScriptedAi {
    /// Answers by `rule` (see [`ScriptedAi::answer_with`]).
    #[must_use]
    pub fn answering(
        rule: impl Fn(&AiRequest) -> Result<String, AiError> + Send + Sync + 'static,
    ) -> Self {
        let ai = Self::default();
        ai.answer_with(rule);
        ai
    }

    #[must_use]
    pub fn named(mut self, name: &str) -> Self {
        name.clone_into(&mut self.name);
        self
    }

    #[must_use]
    pub fn with_latency(mut self, latency: Duration) -> Self {
        self.latency = latency;
        self
    }

    /// Waits each call's latency on `clock`.
    #[must_use]
    pub fn on_clock(mut self, clock: Arc<dyn Clock>) -> Self {
        self.clock = Some(clock);
        self
    }

    /// From now on, answers what `rule` says (e.g. by the file path in the prompt).
    pub fn answer_with(
        &self,
        rule: impl Fn(&AiRequest) -> Result<String, AiError> + Send + Sync + 'static,
    ) {
        self.script().rule = Arc::new(rule);
    }

    /// The next call not taken by earlier queued outcomes answers `content`.
    pub fn push_answer(&self, content: &str) {
        self.script().queued.push_back(Ok(content.to_owned()));
    }

    /// The next `n` calls not taken by earlier queued outcomes fail with `error`.
    pub fn fail_next(&self, n: usize, error: &AiError) {
        let mut script = self.script();
        script.queued.extend((0..n).map(|_| Err(error.clone())));
    }

    /// Until set back to `None`, every call, `check` included, fails with `error`
    /// (a revoked key, a provider that is down).
    pub fn set_outage(&self, error: Option<AiError>) {
        self.script().outage = error;
    }

    /// The model completions report, instead of the requested one.
    pub fn resolve_model_to(&self, model: &str) {
        self.script().model = Some(model.to_owned());
    }

    /// Every completion request so far, in order.
    #[must_use]
    pub fn requests(&self) -> Vec<AiRequest> {
        self.script().requests.clone()
    }

    fn script(&self) -> MutexGuard<'_, Script> {
        self.script.lock().unwrap()
    }

    /// The scripted outcome of `request`, which is recorded.
    fn outcome(&self, request: &AiRequest) -> (Result<String, AiError>, String) {
        let mut script = self.script();
        script.requests.push(request.clone());
        let model = script
            .model
            .clone()
            .unwrap_or_else(|| request.model.clone());
        if let Some(error) = &script.outage {
            return (Err(error.clone()), model);
        }
        let outcome = match script.queued.pop_front() {
            Some(outcome) => outcome,
            None => {
                let rule = script.rule.clone();
                // The rule runs unlocked: it may inspect this provider.
                drop(script);
                rule(request)
            }
        };
        (outcome, model)
    }

    async fn wait(&self) {
        if let Some(clock) = &self.clock {
            clock.sleep(self.latency).await;
        }
    }
}

/// About four characters a token, as common tokenizers average on code and prose.
fn tokens(text: &str) -> u32 {
    u32::try_from(text.chars().count().div_ceil(4).max(1)).unwrap_or(u32::MAX)
}

fn usage(request: &AiRequest, content: &str) -> TokenUsage {
    let shared = request.shared.as_deref().map_or(0, tokens);
    let prompt = tokens(&request.system) + shared + tokens(&request.user);
    let completion = tokens(content);
    TokenUsage {
        prompt,
        completion,
        total: prompt + completion,
        cached: 0,
    }
}

#[async_trait]
impl AiProvider for ScriptedAi {
    fn name(&self) -> &str {
        &self.name
    }

    async fn complete(&self, request: &AiRequest) -> Result<AiCompletion, AiError> {
        let (outcome, model) = self.outcome(request);
        self.wait().await;
        let content = outcome?;
        if content.trim().is_empty() {
            return Err(AiError::InvalidResponse("empty content".into()));
        }
        Ok(AiCompletion {
            usage: usage(request, &content),
            content,
            model,
            duration: self.latency,
        })
    }

    async fn check(&self) -> Result<(), AiError> {
        match self.script().outage.clone() {
            Some(error) => Err(error),
            None => Ok(()),
        }
    }
}

/// [`AiProviders`] that serves every configuration with the same provider (a
/// [`ScriptedAi`]), recording the targets it was asked for: which endpoint, key and
/// model a review resolved to is read there, and the model in the requests.
pub struct SameAi {
    ai: Arc<dyn AiProvider>,
    asked: Mutex<Vec<AiTarget>>,
    /// Refuses to build any provider with this error, until cleared.
    broken: Mutex<Option<AiError>>,
}

impl SameAi {
    #[must_use]
    pub fn new(ai: Arc<dyn AiProvider>) -> Self {
        Self {
            ai,
            asked: Mutex::new(Vec::new()),
            broken: Mutex::new(None),
        }
    }

    /// Until set back to `None`, no provider can be built (an HTTP client that
    /// cannot be made, say).
    pub fn break_with(&self, error: Option<AiError>) {
        *self.broken.lock().unwrap() = error;
    }

    /// Every target a provider was asked for, in order.
    #[must_use]
    pub fn asked(&self) -> Vec<AiTarget> {
        self.asked.lock().unwrap().clone()
    }
}

impl AiProviders for SameAi {
    fn provider(&self, target: &AiTarget) -> Result<Arc<dyn AiProvider>, AiError> {
        self.asked.lock().unwrap().push(target.clone());
        match self.broken.lock().unwrap().clone() {
            Some(error) => Err(error),
            None => Ok(self.ai.clone()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fakes::FakeClock;

    fn request() -> AiRequest {
        AiRequest {
            model: "m".into(),
            system: "s".into(),
            shared: None,
            user: "src/a.rs".into(),
            max_tokens: None,
            temperature: None,
            json_schema: None,
        }
    }

    #[tokio::test]
    async fn queued_outcomes_come_first_and_each_call_takes_its_latency() {
        let clock = Arc::new(FakeClock::default());
        let latency = Duration::from_secs(2);
        let ai = ScriptedAi::answering(|r| Ok(format!("about {}", r.user)))
            .with_latency(latency)
            .on_clock(clock.clone());
        let hiccup = AiError::Unavailable("hiccup".into());
        ai.fail_next(1, &hiccup);
        ai.push_answer("first");
        assert_eq!(ai.complete(&request()).await, Err(hiccup));
        assert_eq!(ai.complete(&request()).await.unwrap().content, "first");
        let done = ai.complete(&request()).await.unwrap();
        assert_eq!(
            (done.content.as_str(), done.duration),
            ("about src/a.rs", latency)
        );
        assert_eq!(clock.slept(), [latency; 3]);
        assert_eq!(ai.requests(), [request(), request(), request()]);
    }
}

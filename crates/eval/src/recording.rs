//! Every call of a case, kept: what each prompt carried (so the context's recall
//! is measured from the prompts themselves, whatever the model), its tokens and
//! its time.

use crate::scripted::{full_text, prompt_file};
use async_trait::async_trait;
use reviewd_domain::ports::{AiCompletion, AiError, AiProvider, AiRequest, TokenUsage};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// One call.
#[derive(Debug, Clone)]
pub struct Call {
    /// The file a review prompt was about (`None` for the summary).
    pub file: Option<String>,
    pub text: String,
    pub usage: TokenUsage,
    pub elapsed: Duration,
    pub failed: bool,
}

pub struct Recording {
    inner: Arc<dyn AiProvider>,
    calls: Mutex<Vec<Call>>,
}

impl Recording {
    #[must_use]
    pub fn new(inner: Arc<dyn AiProvider>) -> Self {
        Self {
            inner,
            calls: Mutex::new(Vec::new()),
        }
    }

    #[must_use]
    pub fn calls(&self) -> Vec<Call> {
        self.calls.lock().map(|c| c.clone()).unwrap_or_default()
    }
}

#[async_trait]
impl AiProvider for Recording {
    fn name(&self) -> &str {
        self.inner.name()
    }

    async fn complete(&self, request: &AiRequest) -> Result<AiCompletion, AiError> {
        let started = Instant::now();
        let result = self.inner.complete(request).await;
        let call = Call {
            file: prompt_file(&request.user).map(str::to_owned),
            text: full_text(request),
            usage: result.as_ref().map(|c| c.usage).unwrap_or_default(),
            elapsed: started.elapsed(),
            failed: result.is_err(),
        };
        if let Ok(mut calls) = self.calls.lock() {
            calls.push(call);
        }
        result
    }

    async fn check(&self) -> Result<(), AiError> {
        self.inner.check().await
    }
}

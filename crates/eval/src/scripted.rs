//! The scripted model CI runs the shipped cases with. Its rule, in one line:
//! it reports a golden finding exactly when every piece of that finding's
//! evidence is in the prompt it is given and the finding's line is an added
//! line of the diff it is shown, and it reports nothing else. So what it finds
//! measures what the context carried, not what a model understood.

use crate::case::Golden;
use async_trait::async_trait;
use reviewd_domain::context::settings::tokens;
use reviewd_domain::ports::{AiCompletion, AiError, AiProvider, AiRequest, TokenUsage};
use reviewd_domain::review::mr_summary;
use std::collections::HashSet;
use std::sync::Mutex;
use std::time::Duration;

/// The rule, as the table and the docs state it.
pub const RULE: &str = "reports a golden finding exactly when all of its evidence is in the prompt and its line is added in the diff shown; nothing else";

pub struct ScriptedModel {
    goldens: Vec<Golden>,
    /// The prefixes (system and shared part) already sent: a repeated one is
    /// counted as cached, as a provider with prefix caching would serve it.
    seen: Mutex<HashSet<u64>>,
}

impl ScriptedModel {
    #[must_use]
    pub fn new(goldens: Vec<Golden>) -> Self {
        Self {
            goldens,
            seen: Mutex::new(HashSet::new()),
        }
    }
}

/// The path of the file a review prompt is about.
#[must_use]
pub fn prompt_file(user: &str) -> Option<&str> {
    user.lines()
        .find_map(|l| l.strip_prefix("File under review: "))
        .and_then(|l| l.rsplit_once(" (").map(|(path, _)| path))
}

/// The whole text a request sends.
#[must_use]
pub fn full_text(request: &AiRequest) -> String {
    format!(
        "{}\n{}\n{}",
        request.system,
        request.shared.as_deref().unwrap_or(""),
        request.user
    )
}

#[async_trait]
impl AiProvider for ScriptedModel {
    fn name(&self) -> &str {
        "scripted"
    }

    async fn complete(&self, request: &AiRequest) -> Result<AiCompletion, AiError> {
        let prefix = format!(
            "{}\n{}",
            request.system,
            request.shared.as_deref().unwrap_or("")
        );
        let key = {
            use std::hash::{Hash, Hasher};
            let mut h = std::collections::hash_map::DefaultHasher::new();
            prefix.hash(&mut h);
            h.finish()
        };
        let cached = self
            .seen
            .lock()
            .map(|mut seen| !seen.insert(key))
            .unwrap_or(false);
        let summary_call = request
            .json_schema
            .as_ref()
            .is_some_and(|(name, _)| name == "mr_summary");
        let content = if summary_call {
            let files: Vec<_> = mr_summary::files_in_prompt(&request.user)
                .map(|path| serde_json::json!({"path": path, "change": "changed"}))
                .collect();
            serde_json::json!({"summary": "The scripted model's summary.", "files": files, "risks": []})
        } else {
            let text = full_text(request);
            let file = prompt_file(&request.user).unwrap_or_default();
            let comments: Vec<_> = self
                .goldens
                .iter()
                .filter(|g| g.file == file)
                .filter(|g| request.user.contains(&format!("{:>5} +", g.line)))
                .filter(|g| g.evidence.iter().all(|e| text.contains(&e.text)))
                .map(|g| {
                    serde_json::json!({
                        "line": g.line,
                        "severity": g.severity.as_deref().unwrap_or("error"),
                        "message": g.message,
                        "suggestion": null,
                    })
                })
                .collect();
            serde_json::json!({"summary": format!("Reviewed {file}."), "comments": comments})
        };
        let content = content.to_string();
        let prompt = tokens(&request.system)
            + request.shared.as_deref().map_or(0, tokens)
            + tokens(&request.user);
        let completion = tokens(&content);
        Ok(AiCompletion {
            content,
            model: "scripted".into(),
            usage: TokenUsage {
                prompt,
                completion,
                total: prompt + completion,
                cached: if cached { tokens(&prefix) } else { 0 },
            },
            duration: Duration::ZERO,
        })
    }

    async fn check(&self) -> Result<(), AiError> {
        Ok(())
    }
}

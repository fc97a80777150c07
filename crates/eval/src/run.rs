//! One case through the review engine: the round's context gathered from the
//! case's trees, each changed file asked with the engine's file review, the
//! summary call, then the findings scored. The same functions the server's
//! workers and the runners review with.

use crate::case::Case;
use crate::diff::mr_diff;
use crate::judge::Judge;
use crate::recording::Recording;
use crate::score::{Found, Matches, score};
use crate::scripted::ScriptedModel;
use crate::source::{BASE, HEAD, TreeSource};
use futures_util::StreamExt;
use reviewd_domain::context::secrets::is_secret_file;
use reviewd_domain::context::{
    self, CodeReader, ContextCaches, ContextMode, ContextSettings, RoundRequest,
};
use reviewd_domain::model::AiPrices;
use reviewd_domain::model::diff::ChangeType;
use reviewd_domain::ports::AiProvider;
use reviewd_domain::review::file_review::{
    AskSettings, CallRecorder, FileContext, FileReview, ModelCall,
};
use reviewd_domain::review::model_chain::{ChainLink, ModelChain};
use reviewd_domain::review::mr_summary::{self, FileOutcome};
use reviewd_domain::review::prompt;
use reviewd_domain::review::repo_config::{self, CONFIG_PATH};
use std::sync::Arc;
use std::time::Instant;

/// The model a run asks.
#[derive(Clone)]
pub enum Model {
    /// The scripted model (its rule: [`crate::scripted::RULE`]).
    Scripted,
    /// A real provider.
    Provider {
        provider: Arc<dyn AiProvider>,
        model: String,
        prices: AiPrices,
    },
}

/// One configuration under evaluation.
#[derive(Clone)]
pub struct Target {
    /// Its name in the table.
    pub name: String,
    pub model: Model,
}

/// How cases are run.
#[derive(Debug, Clone)]
pub struct RunSettings {
    pub context: ContextMode,
    pub budget_tokens: u32,
    /// Lines a finding may be off its golden line.
    pub tolerance: u32,
    pub file_concurrency: usize,
    pub max_tokens: Option<u32>,
    pub temperature: Option<f64>,
    pub max_diff_chars: usize,
}

impl Default for RunSettings {
    fn default() -> Self {
        Self {
            context: ContextMode::Full,
            budget_tokens: context::settings::DEFAULT_BUDGET_TOKENS,
            tolerance: 3,
            file_concurrency: 3,
            max_tokens: Some(2_000),
            temperature: Some(0.1),
            max_diff_chars: 24_000,
        }
    }
}

/// What one case came to.
#[derive(Debug, Clone, Default)]
pub struct CaseResult {
    pub id: String,
    pub language: String,
    pub matches: Matches,
    /// Golden findings whose evidence all reached a prompt of their file.
    pub evidence_reached: usize,
    pub calls: usize,
    pub failed_calls: usize,
    pub prompt_tokens: u64,
    pub completion_tokens: u64,
    pub cached_tokens: u64,
    /// Characters of the MR's diffs, and of the prompts sent for them.
    pub diff_chars: usize,
    pub prompt_chars: usize,
    pub cost_usd: Option<f64>,
    /// Time to gather the context, and in all.
    pub context_ms: u64,
    pub elapsed_ms: u64,
    /// Pieces of context sent, by kind, summed over the files.
    pub pieces: usize,
    pub context_tokens: u64,
}

/// Runs `case` against `target`.
pub async fn run_case(
    case: &Case,
    target: &Target,
    settings: &RunSettings,
    judge: Option<&Judge>,
) -> CaseResult {
    let started = Instant::now();
    let (inner, model_name, prices): (Arc<dyn AiProvider>, String, AiPrices) = match &target.model {
        Model::Scripted => (
            Arc::new(ScriptedModel::new(case.meta.findings.clone())),
            "scripted".into(),
            AiPrices::default(),
        ),
        Model::Provider {
            provider,
            model,
            prices,
        } => (provider.clone(), model.clone(), *prices),
    };
    let recording = Arc::new(Recording::new(inner));
    let ai = ModelChain::single(ChainLink {
        provider: recording.clone(),
        name: target.name.clone(),
        model: model_name,
        prices,
    });
    let diffs = mr_diff(&case.base, &case.head);
    let mut context_settings = ContextSettings {
        mode: settings.context,
        budget_tokens: settings.budget_tokens,
        ..ContextSettings::default()
    };
    // The repository's `.reviewd.yml` at head applies as on the server.
    if let Some(file) = case
        .head
        .get(CONFIG_PATH)
        .and_then(|bytes| repo_config::read(bytes, &reviewd_repo_config::YamlRepoConfig).ok())
    {
        context_settings.instructions = file.instructions.clone();
        if let Some(c) = &file.context {
            if let Some(b) = c.budget_tokens {
                context_settings.budget_tokens = b;
            }
            context_settings.always.clone_from(&c.always);
            context_settings.never.clone_from(&c.never);
        }
        context_settings.ignore = file.ignore.clone().unwrap_or_default();
    }
    let reviewed: Vec<String> = diffs
        .iter()
        .filter(|d| d.diff.is_some() && d.change_type != ChangeType::Deleted)
        .filter(|d| !is_secret_file(&d.new_path))
        .map(|d| d.new_path.clone())
        .collect();
    let reader = CodeReader::new(
        Arc::new(TreeSource::new(case.base.clone(), case.head.clone())),
        Arc::new(ContextCaches::default()),
        case.id.clone(),
        &context_settings,
    );
    let analyzer = reviewd_syntax::TreeSitterAnalyzer::new();
    let request = RoundRequest {
        mr_title: &case.meta.title,
        mr_description: case.meta.description.as_deref(),
        base: BASE,
        head: HEAD,
        files: &diffs,
        reviewed: &reviewed,
    };
    let context_started = Instant::now();
    let round = context::prepare(request, Some(&reader), Some(&analyzer), &context_settings).await;
    let context_ms = u64::try_from(context_started.elapsed().as_millis()).unwrap_or(u64::MAX);

    let ask = AskSettings {
        max_tokens: settings.max_tokens,
        temperature: settings.temperature,
        max_diff_chars: settings.max_diff_chars,
        answer_attempts: 2,
    };
    let system = prompt::system_prompt(None);
    let files: Vec<_> = diffs
        .iter()
        .filter(|d| reviewed.contains(&d.new_path))
        .collect();
    let verdicts: Vec<_> = futures_util::stream::iter(files.iter().map(|file| {
        let (round, ask, system, ai) = (&round, &ask, &system, &ai);
        async move {
            let review = FileReview::new(file.diff.as_deref().unwrap_or(""), ask.max_diff_chars);
            let verdict = review
                .run(
                    ai,
                    ask,
                    FileContext {
                        round,
                        system,
                        rules: &[],
                        path: &file.new_path,
                        change_type: file.change_type,
                        // The cases measure the model alone; the secrets scan
                        // needs none and would score itself.
                        tools: &[],
                        post: reviewd_domain::review::tools::PostMode::default(),
                    },
                    &Quiet,
                )
                .await;
            (file.new_path.clone(), verdict)
        }
    }))
    .buffered(settings.file_concurrency.max(1))
    .collect()
    .await;

    let outcomes: Vec<FileOutcome> = verdicts
        .iter()
        .map(|(path, v)| FileOutcome {
            path: path.clone(),
            summary: v.summary.clone(),
            comments: v
                .comments
                .iter()
                .map(|c| (c.severity, c.line, c.message.clone()))
                .collect(),
            failed: v.error.is_some(),
        })
        .collect();
    if mr_summary::worth_a_call(&outcomes)
        && let Err(e) = mr_summary::summarize(&ai, &ask, &round, &outcomes, &Quiet).await
    {
        tracing::info!(case = %case.id, error = %e, "eval.summary_failed");
    }

    let found: Vec<Found> = verdicts
        .iter()
        .flat_map(|(path, v)| {
            v.comments.iter().map(move |c| Found {
                file: path.clone(),
                line: c.line,
                message: c.message.clone(),
            })
        })
        .collect();
    let matches = score(
        &case.meta.findings,
        &case.meta.unwanted,
        &found,
        settings.tolerance,
        judge,
    )
    .await;
    let calls = recording.calls();
    let evidence_reached = case
        .meta
        .findings
        .iter()
        .filter(|g| {
            calls.iter().any(|c| {
                c.file.as_deref() == Some(g.file.as_str())
                    && g.evidence.iter().all(|e| c.text.contains(&e.text))
            })
        })
        .count();
    let sum =
        |f: fn(&crate::recording::Call) -> u32| calls.iter().map(|c| u64::from(f(c))).sum::<u64>();
    let (prompt_tokens, completion_tokens) = (sum(|c| c.usage.prompt), sum(|c| c.usage.completion));
    let cost_usd = prices.cost_usd(
        u32::try_from(prompt_tokens).unwrap_or(u32::MAX),
        u32::try_from(completion_tokens).unwrap_or(u32::MAX),
    );
    CaseResult {
        id: case.id.clone(),
        language: case.meta.language.clone().unwrap_or_default(),
        matches,
        evidence_reached,
        calls: calls.len(),
        failed_calls: calls.iter().filter(|c| c.failed).count(),
        prompt_tokens,
        completion_tokens,
        cached_tokens: sum(|c| c.usage.cached),
        diff_chars: diffs
            .iter()
            .filter_map(|d| d.diff.as_ref())
            .map(String::len)
            .sum(),
        prompt_chars: calls
            .iter()
            .filter(|c| c.file.is_some())
            .map(|c| c.text.len())
            .sum(),
        cost_usd,
        context_ms,
        elapsed_ms: u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
        pieces: verdicts.iter().map(|(_, v)| v.context.pieces.len()).sum(),
        context_tokens: verdicts
            .iter()
            .map(|(_, v)| u64::from(v.context.tokens))
            .sum(),
    }
}

/// The eval keeps its own record of the calls ([`Recording`]).
struct Quiet;

#[async_trait::async_trait]
impl CallRecorder for Quiet {
    async fn record(&self, _: ModelCall<'_>) {}
}

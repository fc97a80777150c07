//! `reviewd eval`: the review engine on a set of cases, against one AI
//! configuration or two side by side, with the scores printed as a table
//! (docs/eval.md). Needs no database, Redis or platform; a stored AI
//! configuration (`--ai config:<name>`) is read from `DATABASE_URL`.

use clap::{Args, ValueEnum};
use reviewd_ai_openai::OpenAiProvider;
use reviewd_domain::context::ContextMode;
use reviewd_domain::model::{AiPrices, AiTarget, SecretString};
use reviewd_eval::{Judge, Model, RunSettings, Target};
use reviewd_http::{HttpClient, RetryPolicy};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum ContextArg {
    /// Enclosing symbols, definitions, callers, the MR overview, guidance.
    Full,
    /// The diff and the MR alone: what the context buys, by difference.
    None,
}

#[derive(Debug, Args)]
pub struct EvalArgs {
    /// The directory of cases (each a directory with a `case.yml`).
    #[arg(default_value = "tests/eval")]
    cases: PathBuf,
    /// Run only these cases (by directory name); repeatable.
    #[arg(long = "case")]
    only: Vec<String>,
    /// The AI configuration: `scripted` (the scripted model), `providerA` (the
    /// `PROVIDERA_*` variables), or `config:<name or id>` (a stored one, read
    /// through `DATABASE_URL`).
    #[arg(long, default_value = "scripted")]
    ai: String,
    /// A second configuration, run on the same cases and shown beside the first.
    #[arg(long)]
    compare: Option<String>,
    #[arg(long, value_enum, default_value = "full")]
    context: ContextArg,
    /// Tokens of context per prompt besides the diff.
    #[arg(long)]
    budget: Option<u32>,
    /// Lines a finding may be off its golden line and still match.
    #[arg(long, default_value_t = 3)]
    tolerance: u32,
    /// An OpenAI-compatible endpoint whose model judges whether a finding near a
    /// golden line describes the same problem (its key in `EVAL_JUDGE_API_KEY`).
    #[arg(long, requires = "judge_model")]
    judge_endpoint: Option<String>,
    #[arg(long)]
    judge_model: Option<String>,
    /// Writes the results as JSON too.
    #[arg(long)]
    json: Option<PathBuf>,
    /// Exits with 1 when the context's recall (golden findings whose evidence
    /// all reached their file's prompt) is below this, e.g. 0.9.
    #[arg(long)]
    min_context_recall: Option<f64>,
}

fn http() -> Result<HttpClient, String> {
    HttpClient::new(RetryPolicy {
        timeout: Duration::from_secs(120),
        ..RetryPolicy::default()
    })
    .map_err(|e| e.to_string())
}

fn provider_target(name: String, target: &AiTarget) -> Result<Target, String> {
    let endpoint = target
        .endpoint
        .clone()
        .ok_or("the configuration has no endpoint (PROVIDERA_ENDPOINT is not set)")?;
    let provider = OpenAiProvider::new(http()?, &name, &endpoint, target.api_key.clone());
    Ok(Target {
        name,
        model: Model::Provider {
            provider: Arc::new(provider),
            model: target.model.clone(),
            prices: target.prices,
        },
    })
}

async fn target(spec: &str) -> Result<Target, String> {
    if spec == "scripted" {
        return Ok(Target {
            name: format!("scripted model: {}", reviewd_eval::scripted::RULE),
            model: Model::Scripted,
        });
    }
    if spec == "providerA" {
        let env = |k: &str| std::env::var(k).ok().filter(|v| !v.is_empty());
        let price = |k: &str| env(k).and_then(|v| v.parse().ok());
        let endpoint = env("PROVIDERA_ENDPOINT").ok_or("PROVIDERA_ENDPOINT is not set")?;
        let model = env("PROVIDERA_MODEL")
            .unwrap_or_else(|| reviewd_domain::model::ai_config::DEFAULT_MODEL.to_owned());
        let provider = OpenAiProvider::new(
            http()?,
            "providerA",
            &endpoint,
            env("PROVIDERA_API_KEY").map(|k| SecretString::new(&k)),
        );
        return Ok(Target {
            name: format!("providerA ({model})"),
            model: Model::Provider {
                provider: Arc::new(provider),
                model,
                prices: AiPrices {
                    input_per_mtok: price("PROVIDERA_INPUT_PRICE_PER_MTOK"),
                    output_per_mtok: price("PROVIDERA_OUTPUT_PRICE_PER_MTOK"),
                },
            },
        });
    }
    if let Some(name) = spec.strip_prefix("config:") {
        let config = reviewd_server::Config::from_env().map_err(|e| e.to_string())?;
        let stored = reviewd_server::startup::stored_ai_target(&config, name)
            .await
            .map_err(|e| e.to_string())?;
        return provider_target(format!("{} ({})", stored.name, stored.model), &stored);
    }
    Err(format!(
        "unknown AI configuration `{spec}`: use scripted, providerA or config:<name or id>"
    ))
}

/// `reviewd export-eval`: a team's own reviews as eval cases.
#[derive(Debug, Args)]
pub struct ExportArgs {
    /// The project whose judged reviews are exported (its id, as in the
    /// dashboard's `/projects/<id>`).
    #[arg(long)]
    project: uuid::Uuid,
    /// A local clone of the project's repository holding the reviews' commits.
    #[arg(long)]
    repo: PathBuf,
    /// The directory the cases are written to.
    #[arg(long)]
    out: PathBuf,
    /// Review rounds exported at most, newest first.
    #[arg(long, default_value_t = 50)]
    limit: u32,
}

/// Exports the project's judged review rounds (through `DATABASE_URL`) as cases.
pub async fn export(args: ExportArgs) -> ExitCode {
    let result = async {
        let config = reviewd_server::Config::from_env().map_err(|e| e.to_string())?;
        let rounds = reviewd_server::startup::judged_rounds(&config, args.project, args.limit)
            .await
            .map_err(|e| e.to_string())?;
        reviewd_eval::export::export(&rounds, &args.repo, &args.out)
    }
    .await;
    match result {
        Ok(done) => {
            for line in &done.skipped {
                eprintln!("reviewd export-eval: skipped {line}");
            }
            println!(
                "reviewd export-eval: {} case(s) written to {}; {} comment(s) left out (not on a line their diff adds)",
                done.cases.len(),
                args.out.display(),
                done.dropped_comments
            );
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("reviewd export-eval: {e}");
            ExitCode::from(2)
        }
    }
}

/// Runs the command; the exit code says whether it ran and met its bound.
pub async fn main(args: EvalArgs) -> ExitCode {
    match run(args).await {
        Ok(code) => code,
        Err(e) => {
            eprintln!("reviewd eval: {e}");
            ExitCode::from(2)
        }
    }
}

async fn run(args: EvalArgs) -> Result<ExitCode, String> {
    let mut cases = reviewd_eval::load_all(&args.cases).map_err(|e| e.to_string())?;
    if !args.only.is_empty() {
        cases.retain(|c| args.only.contains(&c.id));
    }
    if cases.is_empty() {
        return Err(format!("no case found in {}", args.cases.display()));
    }
    let settings = RunSettings {
        context: match args.context {
            ContextArg::Full => ContextMode::Full,
            ContextArg::None => ContextMode::None,
        },
        budget_tokens: args
            .budget
            .unwrap_or(reviewd_domain::context::settings::DEFAULT_BUDGET_TOKENS),
        tolerance: args.tolerance,
        ..RunSettings::default()
    };
    let judge = match (&args.judge_endpoint, &args.judge_model) {
        (Some(endpoint), Some(model)) => Some(Judge {
            provider: Arc::new(OpenAiProvider::new(
                http()?,
                "judge",
                endpoint,
                std::env::var("EVAL_JUDGE_API_KEY")
                    .ok()
                    .map(|k| SecretString::new(&k)),
            )),
            model: model.clone(),
        }),
        _ => None,
    };
    let mut targets = vec![target(&args.ai).await?];
    if let Some(spec) = &args.compare {
        targets.push(target(spec).await?);
    }
    let mut reports = Vec::new();
    for t in &targets {
        let report = reviewd_eval::run(&cases, t, &settings, judge.as_ref()).await;
        println!("{}", report.table());
        reports.push(report);
    }
    if let Some(path) = &args.json {
        let text = serde_json::to_string_pretty(&reviewd_eval::report::json(&reports))
            .map_err(|e| e.to_string())?;
        std::fs::write(path, text).map_err(|e| format!("{}: {e}", path.display()))?;
    }
    if let Some(bound) = args.min_context_recall {
        for report in &reports {
            let recall = report.totals().context_recall.unwrap_or(0.0);
            if recall < bound {
                eprintln!(
                    "reviewd eval: context recall {:.1}% of {} is below {:.1}%",
                    recall * 100.0,
                    report.target,
                    bound * 100.0
                );
                return Ok(ExitCode::from(1));
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

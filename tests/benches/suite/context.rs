//! The reviewer's context (issue 37): on the shipped eval cases with the scripted
//! model, what the context carries (its recall, against the diff alone) and what it
//! costs (prompt size against the diff, tokens, the cached share); then each case
//! read through the real GitLab and GitHub adapters against the stateful fakes
//! (platform calls, bytes and time per round, cold and warm, beside one model
//! answer's time); then a large real repository (crates from the local cargo
//! registry) indexed: time and memory.

use crate::table::{Row, Table};
use reviewd_domain::context::index::SymbolIndex;
use reviewd_domain::context::{
    self, CodeReader, ContextCaches, ContextMode, ContextSettings, PlatformCodeSource, RoundRequest,
};
use reviewd_domain::model::{AuthType, PlatformConnection, SecretString};
use reviewd_domain::ports::HostingPlatform;
use reviewd_eval::{Model, RunSettings, Target};
use reviewd_http::{HttpClient, RetryPolicy};
use reviewd_syntax::TreeSitterAnalyzer;
use reviewd_testkit::contract::hosting::FakeServer;
use reviewd_testkit::fakes::hosting::{MrFixture, ProjectFixture};
use reviewd_testkit::{FakeGithub, FakeGitlab};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// What one model answer takes at best: the bound the context's time is read
/// against (a small model's answer to a review prompt; large ones take longer).
const PROVIDER_BOUND: Duration = Duration::from_secs(2);

pub async fn run(table: &mut Table) {
    let cases = reviewd_eval::load_all(&Path::new(env!("CARGO_MANIFEST_DIR")).join("eval"))
        .expect("the shipped cases");
    eval(table, &cases).await;
    platforms(table, &cases).await;
    large_repository(table).await;
}

async fn eval(table: &mut Table, cases: &[reviewd_eval::Case]) {
    let scripted = Target {
        name: "scripted".into(),
        model: Model::Scripted,
    };
    let full = reviewd_eval::run(cases, &scripted, &RunSettings::default(), None).await;
    let bare = reviewd_eval::run(
        cases,
        &scripted,
        &RunSettings {
            context: ContextMode::None,
            ..RunSettings::default()
        },
        None,
    )
    .await;
    let (t, b) = (full.totals(), bare.totals());
    let recall = t.context_recall.unwrap_or(0.0);
    let without = b.context_recall.unwrap_or(0.0);
    table.push(
        Row::info(
            "context",
            format!("context recall, {} shipped cases, scripted model", t.cases),
            format!("{:.0} % ({} of {})", recall * 100.0, t.found, t.goldens),
        )
        .bound(format!("diff alone {:.0} %", without * 100.0), "")
        .target(">= 90 %", recall >= 0.9),
    );
    let per_mr = |tokens: u64| tokens as f64 / t.cases.max(1) as f64;
    table.push(
        Row::info(
            "context",
            "prompt size against the MR's diff (characters), mean and p90",
            format!(
                "{:.1}x, p90 {:.1}x",
                t.prompt_to_diff_mean.unwrap_or(0.0),
                t.prompt_to_diff_p90.unwrap_or(0.0)
            ),
        )
        .bound(
            format!(
                "diff alone {:.1}x, p90 {:.1}x",
                b.prompt_to_diff_mean.unwrap_or(0.0),
                b.prompt_to_diff_p90.unwrap_or(0.0)
            ),
            "",
        ),
    );
    table.push(
        Row::info(
            "context",
            "prompt tokens per MR (the summary call included), mean",
            format!("{:.0}", per_mr(t.prompt_tokens)),
        )
        .bound(
            format!(
                "diff alone {:.0}",
                b.prompt_tokens as f64 / b.cases.max(1) as f64
            ),
            format!(
                "{:.1}x",
                t.prompt_tokens as f64 / b.prompt_tokens.max(1) as f64
            ),
        ),
    );
    table.push(Row::info(
        "context",
        "cached share of prompt tokens (a repeated shared prefix)",
        format!("{:.0} %", t.cached_share.unwrap_or(0.0) * 100.0),
    ));
}

/// One case as a platform's merge request: the diff, and the repository at base
/// and head (text files).
fn fixture(case: &reviewd_eval::Case, iid: i64) -> MrFixture {
    let text = |tree: &reviewd_eval::tree::Tree| -> Vec<(String, String)> {
        tree.iter()
            .filter_map(|(p, b)| Some((p.clone(), String::from_utf8(b.clone()).ok()?)))
            .collect()
    };
    let mut mr = MrFixture::new(iid)
        .head(&format!("{:040x}", 0xa000_0000_u64 + iid as u64))
        .base(&format!("{:040x}", 0xb000_0000_u64 + iid as u64))
        .title(&case.meta.title);
    for change in reviewd_eval::diff::mr_diff(&case.base, &case.head) {
        mr = mr.change(change);
    }
    mr.repo_files = text(&case.head);
    mr.base_files = text(&case.base);
    mr
}

/// Per round: (calls, bytes, time).
type Round = (u32, u64, Duration);

async fn rounds_on(
    platform: Arc<dyn HostingPlatform>,
    fake: &impl FakeServer,
    cases: &[reviewd_eval::Case],
) -> (Vec<Round>, Vec<Round>) {
    let analyzer = TreeSitterAnalyzer::new();
    let settings = ContextSettings::default();
    let (mut cold, mut warm) = (Vec::new(), Vec::new());
    for (i, case) in cases.iter().enumerate() {
        let mr = fixture(case, i as i64 + 1);
        let project = fake
            .add_project(&ProjectFixture::new(&format!("bench/case-{i}")).mr(mr.clone()))
            .await;
        let caches = Arc::new(ContextCaches::default());
        let reviewed: Vec<String> = mr
            .files
            .iter()
            .filter(|f| f.diff.is_some())
            .map(|f| f.new_path.clone())
            .collect();
        for pass in [&mut cold, &mut warm] {
            let source = Arc::new(PlatformCodeSource::new(platform.clone(), project.clone()));
            let reader = CodeReader::new(source, caches.clone(), project.id.clone(), &settings);
            let started = Instant::now();
            let round = context::prepare(
                RoundRequest {
                    mr_title: &mr.title,
                    mr_description: None,
                    base: &mr.base_sha,
                    head: &mr.head_sha,
                    files: &mr.files,
                    reviewed: &reviewed,
                },
                Some(&reader),
                Some(&analyzer),
                &settings,
            )
            .await;
            let elapsed = started.elapsed();
            let stats = round.stats();
            pass.push((stats.calls, stats.bytes, elapsed));
        }
    }
    (cold, warm)
}

fn percentile(sorted: &[Duration], q: f64) -> Duration {
    sorted[((sorted.len() - 1) as f64 * q).round() as usize]
}

fn summarize(table: &mut Table, platform: &str, pass: &str, rounds: &[Round]) {
    let n = rounds.len().max(1) as f64;
    let calls = rounds.iter().map(|r| f64::from(r.0)).sum::<f64>() / n;
    let max_calls = rounds.iter().map(|r| r.0).max().unwrap_or(0);
    let kib = rounds.iter().map(|r| r.1 as f64).sum::<f64>() / n / 1024.0;
    let mut times: Vec<Duration> = rounds.iter().map(|r| r.2).collect();
    times.sort();
    let (p50, p99) = (percentile(&times, 0.5), percentile(&times, 0.99));
    table.push(Row::info(
        "context",
        format!("{platform}, {pass}: platform calls and KiB read per MR, mean"),
        format!("{calls:.1} calls (max {max_calls}), {kib:.1} KiB"),
    ));
    table.push(
        Row::info(
            "context",
            format!("{platform}, {pass}: time the context adds to a round, p50 / p99"),
            format!(
                "{:.1} / {:.1} ms",
                p50.as_secs_f64() * 1e3,
                p99.as_secs_f64() * 1e3
            ),
        )
        .bound(
            format!("one model answer {} s", PROVIDER_BOUND.as_secs()),
            format!(
                "p99 {:.1} %",
                p99.as_secs_f64() / PROVIDER_BOUND.as_secs_f64() * 100.0
            ),
        ),
    );
}

async fn platforms(table: &mut Table, cases: &[reviewd_eval::Case]) {
    let http = HttpClient::new(RetryPolicy::fast()).expect("a client");
    let connection = |platform_type, base_url: String, token: &str| PlatformConnection {
        platform_type,
        base_url,
        auth_type: AuthType::Token,
        token: SecretString::new(token),
        app: None,
    };
    let gitlab = FakeGitlab::start("glpat-bench-context").await;
    let adapter: Arc<dyn HostingPlatform> = Arc::new(reviewd_platform_gitlab::GitlabPlatform::new(
        http.clone(),
        &connection(
            reviewd_domain::model::PlatformType::Gitlab,
            gitlab.account().server.uri(),
            "glpat-bench-context",
        ),
    ));
    let (cold, warm) = rounds_on(adapter, &gitlab, cases).await;
    summarize(table, "hostA", "first round", &cold);
    summarize(table, "hostA", "same head again (caches warm)", &warm);
    let github = FakeGithub::start("ghp-bench-context").await;
    let adapter: Arc<dyn HostingPlatform> = Arc::new(reviewd_platform_github::GithubPlatform::new(
        http,
        &connection(
            reviewd_domain::model::PlatformType::Github,
            github.account().server.uri(),
            "ghp-bench-context",
        ),
    ));
    let (cold, warm) = rounds_on(adapter, &github, cases).await;
    summarize(table, "hostB", "first round", &cold);
    summarize(table, "hostB", "same head again (caches warm)", &warm);
}

/// The largest crates of the local cargo registry that together pass 100,000
/// lines of Rust, by name so a rerun reads the same ones.
fn registry_sources() -> Vec<(String, String, Arc<str>)> {
    let home = std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cargo")))
        .expect("a cargo home");
    let mut crates: Vec<PathBuf> = std::fs::read_dir(home.join("registry/src"))
        .into_iter()
        .flatten()
        .flatten()
        .flat_map(|index| {
            std::fs::read_dir(index.path())
                .into_iter()
                .flatten()
                .flatten()
        })
        .map(|e| e.path())
        .filter(|p| {
            let name = p
                .file_name()
                .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
            [
                "tokio-1.",
                "diesel-2.",
                "gitlab-0.",
                "syn-2.",
                "regex-automata-0.",
            ]
            .iter()
            .any(|prefix| name.starts_with(prefix))
        })
        .collect();
    crates.sort();
    let mut files = Vec::new();
    for root in crates {
        let mut pending = vec![root.clone()];
        while let Some(dir) = pending.pop() {
            for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
                let path = entry.path();
                if path.is_dir() {
                    pending.push(path);
                } else if path.extension().is_some_and(|e| e == "rs")
                    && let Ok(text) = std::fs::read_to_string(&path)
                {
                    let name = path
                        .strip_prefix(&root)
                        .unwrap_or(&path)
                        .display()
                        .to_string();
                    let crate_name = root
                        .file_name()
                        .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
                    files.push((
                        format!("{crate_name}/{name}"),
                        reviewd_eval::source::blob_id(text.as_bytes()),
                        Arc::from(text),
                    ));
                }
            }
        }
    }
    files.sort_by(|a, b| a.0.cmp(&b.0));
    files
}

fn rss_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            let line = s.lines().find(|l| l.starts_with("VmRSS:"))?;
            line.split_whitespace().nth(1)?.parse().ok()
        })
        .unwrap_or(0)
}

async fn large_repository(table: &mut Table) {
    let files = registry_sources();
    let lines: usize = files.iter().map(|(_, _, t)| t.lines().count()).sum();
    let bytes: usize = files.iter().map(|(_, _, t)| t.len()).sum();
    if lines < 100_000 {
        table.push(Row::info(
            "context",
            "index of a large repository",
            format!("skipped: the local cargo registry holds {lines} lines of the chosen crates"),
        ));
        return;
    }
    let caches = ContextCaches::default();
    let before = rss_kib();
    let started = Instant::now();
    let index = SymbolIndex::build(files, &TreeSitterAnalyzer::new(), &caches).await;
    let elapsed = started.elapsed();
    let after = rss_kib();
    table.push(Row::info(
        "context",
        format!(
            "index of tokio, diesel, gitlab, syn and regex-automata from the cargo registry: {} files, {lines} lines, {:.1} MB",
            index.len(),
            bytes as f64 / 1e6
        ),
        format!(
            "{:.2} s ({:.0} lines/s), {} parsed",
            elapsed.as_secs_f64(),
            lines as f64 / elapsed.as_secs_f64(),
            index.parsed()
        ),
    ));
    table.push(Row::info(
        "context",
        "the same index's resident memory (texts, outlines, maps)",
        format!(
            "{:.1} MB more",
            (after.saturating_sub(before)) as f64 / 1024.0
        ),
    ));
    // A second build on warm caches: outlines are reused by blob id.
    let files = registry_sources();
    let started = Instant::now();
    let again = SymbolIndex::build(files, &TreeSitterAnalyzer::new(), &caches).await;
    table.push(Row::info(
        "context",
        "the same repository indexed again (a new head, outlines cached by blob)",
        format!(
            "{:.2} s for {} files",
            started.elapsed().as_secs_f64(),
            again.len()
        ),
    ));
}

//! The analyzers `.reviewd.yml` names, run in the task's checkout before the
//! model is asked: their findings become evidence for each file's review. A tool
//! that is missing, fails, runs too long or writes something unreadable costs
//! only its own findings, and says so in the task's log.

pub mod clippy;
pub mod linters;
mod outputs;
pub mod readers;
mod reaper;
pub mod sandbox;
mod wrappers;

use linters::{Invocation, OutputKind};
use reviewd_domain::review::tools::ToolFinding;
use reviewd_domain::review::tools::settings::{DEFAULT_SEMGREP_RULES, RepoTools};
use sandbox::{Sandbox, ToolError};
use std::path::Path;
use std::time::Instant;

/// Why the repository's own programs did not run.
const NOT_TRUSTED: &str = "the repository's own program, run only where RUNNER_TOOLS_REPO_COMMANDS=true (it comes from the merge request), skipped";

/// What the task's tools found, and the log lines that say how each went.
#[derive(Debug, Default)]
pub struct Analysis {
    pub findings: Vec<ToolFinding>,
    pub log: Vec<String>,
}

/// The invocations `settings` asks for on `files` (the changed files present in
/// the checkout), with a log line for each tool left out.
#[must_use]
pub fn plan(
    dir: &Path,
    files: &[String],
    settings: &RepoTools,
    repo_commands: bool,
) -> (Vec<Invocation>, Vec<String>) {
    let mut planned = Vec::new();
    let mut log = Vec::new();
    for name in settings.tools() {
        let invocation = match name {
            "ruff" => linters::ruff(files),
            "shellcheck" => linters::shellcheck(files),
            "semgrep" => {
                let rules: Vec<String> = match &settings.semgrep_rules {
                    Some(rules) => rules.clone(),
                    None => DEFAULT_SEMGREP_RULES.iter().map(|r| (*r).to_owned()).collect(),
                };
                // Only rules in the checkout: a name that is not a file would be
                // looked up in semgrep's registry, over the network.
                let present: Vec<String> =
                    rules.into_iter().filter(|r| dir.join(r).exists()).collect();
                if present.is_empty() {
                    log.push("semgrep: no local rules (.semgrep.yml or tools.semgrepRules), skipped".into());
                }
                linters::semgrep(files, &present)
            }
            "clippy" => clippy::clippy(files, dir.join("Cargo.toml").is_file()).filter(|_| {
                if !repo_commands {
                    log.push(format!("clippy: it builds the project, {NOT_TRUSTED}"));
                }
                repo_commands
            }),
            "eslint" => linters::eslint(files).filter(|_| {
                if !repo_commands {
                    log.push(format!("eslint: {NOT_TRUSTED}"));
                    return false;
                }
                let present = dir.join("node_modules/.bin/eslint").is_file();
                if !present {
                    log.push("eslint: the project's node_modules/.bin/eslint is not installed in the checkout, skipped".into());
                }
                present
            }),
            other => {
                log.push(format!("{other}: not run by this runner version"));
                None
            }
        };
        planned.extend(invocation);
    }
    for command in &settings.commands {
        if !repo_commands {
            log.push(format!("{}: {NOT_TRUSTED}", command.name));
            continue;
        }
        planned.push(Invocation {
            tool: command.name.clone(),
            argv: command.run.clone(),
            output: OutputKind::SarifFile(command.sarif.clone()),
        });
    }
    (planned, log)
}

/// Runs each invocation in turn (one at a time: each may use every core) and
/// reads its findings.
/// All of them within `budget` (a share of the task's lease: the review must
/// still have time once they are done); a tool that would start past it is
/// skipped, and none runs longer than what is left.
pub async fn run(
    sandbox: &Sandbox,
    planned: Vec<Invocation>,
    budget: std::time::Duration,
) -> Analysis {
    let mut analysis = Analysis::default();
    let deadline = Instant::now() + budget;
    for invocation in planned {
        let started = Instant::now();
        let tool = invocation.tool.clone();
        let left = deadline.saturating_duration_since(started);
        if left.is_zero() {
            analysis.log.push(format!(
                "{tool}: the analyzers' share of the task ({} s) is spent, skipped",
                budget.as_secs()
            ));
            continue;
        }
        let limited = Sandbox {
            timeout: sandbox.timeout.min(left),
            ..sandbox.clone()
        };
        match run_one(&limited, invocation).await {
            Ok((findings, note)) => {
                analysis.log.push(format!(
                    "{tool}: {} finding(s) in {} ms{note}",
                    findings.len(),
                    started.elapsed().as_millis()
                ));
                analysis.findings.extend(findings);
            }
            Err(ToolError::Missing) => analysis
                .log
                .push(format!("{tool}: not installed on this runner, skipped")),
            Err(e) => analysis
                .log
                .push(format!("{tool}: {e}; its findings are left out")),
        }
    }
    analysis
}

async fn run_one(
    sandbox: &Sandbox,
    invocation: Invocation,
) -> Result<(Vec<ToolFinding>, String), ToolError> {
    let ran = sandbox.run(&invocation.argv).await?;
    let root = sandbox.dir.to_string_lossy().into_owned();
    let unreadable = |e: String| {
        let stderr = ran.stderr.lines().last().unwrap_or_default().to_owned();
        ToolError::Failed(format!(
            "its output could not be read ({e}); exit {:?}{}",
            ran.code,
            if stderr.is_empty() {
                String::new()
            } else {
                format!(", {stderr}")
            }
        ))
    };
    match invocation.output {
        OutputKind::Sarif => {
            outputs::read_sarif(&ran.stdout, &invocation.tool, &root).map_err(unreadable)
        }
        OutputKind::ShellcheckJson => readers::read_shellcheck(&ran.stdout)
            .map(|f| (f, String::new()))
            .map_err(unreadable),
        OutputKind::EslintJson => readers::read_eslint(&ran.stdout, &root)
            .map(|f| (f, String::new()))
            .map_err(unreadable),
        OutputKind::CargoJson => clippy::read_cargo_json(&ran.stdout)
            .map(|f| (f, String::new()))
            .map_err(unreadable),
        OutputKind::SarifFile(path) => {
            let bytes = outputs::read_inside(&sandbox.dir, &path)
                .await
                .map_err(unreadable)?;
            outputs::read_sarif(&bytes, &invocation.tool, &root).map_err(unreadable)
        }
    }
}

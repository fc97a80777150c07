//! The analyzers `.reviewd.yml` names, run in the task's checkout before the
//! model is asked: their findings become evidence for each file's review. A tool
//! that is missing, fails, runs too long or writes something unreadable costs
//! only its own findings, and says so in the task's log.

pub mod linters;
pub mod sandbox;

use linters::{Invocation, OutputKind};
use reviewd_domain::review::tools::ToolFinding;
use reviewd_domain::review::tools::settings::{DEFAULT_SEMGREP_RULES, RepoTools};
use sandbox::{Sandbox, ToolError};
use std::path::Path;
use std::time::Instant;

/// What the task's tools found, and the log lines that say how each went.
#[derive(Debug, Default)]
pub struct Analysis {
    pub findings: Vec<ToolFinding>,
    pub log: Vec<String>,
}

/// The invocations `settings` asks for on `files` (the changed files present in
/// the checkout), with a log line for each tool left out.
#[must_use]
pub fn plan(dir: &Path, files: &[String], settings: &RepoTools) -> (Vec<Invocation>, Vec<String>) {
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
            "eslint" => linters::eslint(files).filter(|_| {
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
pub async fn run(sandbox: &Sandbox, planned: Vec<Invocation>) -> Analysis {
    let mut analysis = Analysis::default();
    for invocation in planned {
        let started = Instant::now();
        let tool = invocation.tool.clone();
        match run_one(sandbox, invocation).await {
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
        OutputKind::Sarif => read_sarif(&ran.stdout, &invocation.tool, &root).map_err(unreadable),
        OutputKind::ShellcheckJson => linters::read_shellcheck(&ran.stdout)
            .map(|f| (f, String::new()))
            .map_err(unreadable),
        OutputKind::EslintJson => linters::read_eslint(&ran.stdout, &root)
            .map(|f| (f, String::new()))
            .map_err(unreadable),
        OutputKind::SarifFile(path) => {
            let bytes = read_inside(&sandbox.dir, &path).await.map_err(unreadable)?;
            read_sarif(&bytes, &invocation.tool, &root).map_err(unreadable)
        }
    }
}

/// A SARIF log's findings; a `command` tool's name stands for its drivers'.
fn read_sarif(bytes: &[u8], tool: &str, root: &str) -> Result<(Vec<ToolFinding>, String), String> {
    let read = reviewd_sarif::read(bytes, Some(root)).map_err(|e| e.to_string())?;
    let mut note = if read.left_out > 0 {
        format!(" ({} more left out: over the limit)", read.left_out)
    } else {
        String::new()
    };
    if let Some(error) = read.errors.first() {
        note.push_str(&format!(
            "; it reported {} error(s), results may be missing: {error}",
            read.errors.len()
        ));
    }
    let findings = read
        .findings
        .into_iter()
        .map(|f| ToolFinding {
            tool: tool.to_owned(),
            ..f
        })
        .collect();
    Ok((findings, note))
}

/// The file at `path` in the checkout, refused when it leads outside it (a
/// symlink) or is larger than a SARIF log may be.
async fn read_inside(dir: &Path, path: &str) -> Result<Vec<u8>, String> {
    let root = tokio::fs::canonicalize(dir)
        .await
        .map_err(|e| e.to_string())?;
    let file = tokio::fs::canonicalize(dir.join(path))
        .await
        .map_err(|_| format!("it wrote no {path}"))?;
    if !file.starts_with(&root) {
        return Err(format!("{path} leads outside the checkout"));
    }
    let size = tokio::fs::metadata(&file)
        .await
        .map_err(|e| e.to_string())?
        .len();
    if size > reviewd_sarif::MAX_SARIF_BYTES as u64 {
        return Err(format!(
            "{path} is {size} bytes; at most {} are read",
            reviewd_sarif::MAX_SARIF_BYTES
        ));
    }
    tokio::fs::read(&file).await.map_err(|e| e.to_string())
}

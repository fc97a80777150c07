//! SARIF 2.1.0 logs (the common output of analyzers: ruff, semgrep, CodeQL, and
//! any tool a team runs in CI) read with serde-sarif into the domain's
//! [`ToolFinding`]s. The input is untrusted (a runner's tool, an upload): its size
//! is checked before parsing, serde_json bounds its nesting, and the results kept
//! are capped after; anything else is an error naming what is wrong, never a panic.

use reviewd_domain::model::grade::Severity;
use reviewd_domain::review::tools::ToolFinding;
use serde_sarif::sarif;

mod paths;
use paths::relative;

/// The largest log read, in bytes.
pub const MAX_SARIF_BYTES: usize = 10 * 1024 * 1024;
/// Most results kept from one log (the rest are counted as left out).
pub const MAX_RESULTS: usize = 5_000;

/// A log's findings.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SarifRead {
    pub findings: Vec<ToolFinding>,
    /// The runs' tools (their drivers' names), each once.
    pub tools: Vec<String>,
    /// Results past [`MAX_RESULTS`], or without a file and line to place them.
    pub left_out: usize,
    /// What the tools said went wrong while they ran (error notifications, or a
    /// run marked unsuccessful): results may be missing.
    pub errors: Vec<String>,
}

/// Why a log could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SarifError {
    #[error("the SARIF log is {0} bytes; at most {MAX_SARIF_BYTES} are read")]
    TooLarge(usize),
    #[error("not a SARIF 2.1.0 log: {0}")]
    Invalid(String),
    #[error("SARIF version {0} is not read; write 2.1.0")]
    Version(String),
}

/// The findings of `bytes`, file paths made relative to the repository: a
/// `file://` URI or an absolute path under `root` (the checkout) loses that
/// prefix; `./` is dropped.
///
/// # Errors
/// Too large, not JSON, not SARIF, or not version 2.1.0.
pub fn read(bytes: &[u8], root: Option<&str>) -> Result<SarifRead, SarifError> {
    if bytes.len() > MAX_SARIF_BYTES {
        return Err(SarifError::TooLarge(bytes.len()));
    }
    let log: sarif::Sarif =
        serde_json::from_slice(bytes).map_err(|e| SarifError::Invalid(e.to_string()))?;
    let version = serde_json::to_value(&log.version)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_default();
    if version != "2.1.0" {
        return Err(SarifError::Version(version));
    }
    refuse_nul(&log)?;
    let mut read = SarifRead::default();
    for run in &log.runs {
        let driver = &run.tool.driver;
        let tool = reviewd_domain::review::tools::clean_name(&driver.name);
        if !read.tools.contains(&tool) {
            read.tools.push(tool.clone());
        }
        for invocation in run.invocations.as_deref().unwrap_or_default() {
            let notes = invocation
                .tool_execution_notifications
                .as_deref()
                .unwrap_or_default();
            for note in notes {
                if note.level.as_ref().and_then(level_name).as_deref() == Some("error") {
                    let text = note.message.text.clone().unwrap_or_default();
                    read.errors.push(one_line(&text));
                }
            }
            if !invocation.execution_successful && notes.is_empty() {
                read.errors
                    .push(format!("{tool} reported an unsuccessful run"));
            }
        }
        let rules = driver.rules.as_deref().unwrap_or_default();
        for result in run.results.as_deref().unwrap_or_default() {
            if read.findings.len() >= MAX_RESULTS {
                read.left_out += 1;
                continue;
            }
            match finding(&tool, rules, result, root) {
                Some(f) => read.findings.push(f.tidy()),
                None => read.left_out += 1,
            }
        }
    }
    Ok(read)
}

/// The texts reviewd reads (a driver's name, a result's rule and message) hold
/// no NUL, as the API document says of every string; elsewhere a NUL is the
/// tool's business, and nothing of it is kept.
fn refuse_nul(log: &sarif::Sarif) -> Result<(), SarifError> {
    for (r, run) in log.runs.iter().enumerate() {
        if run.tool.driver.name.contains('\0') {
            return Err(SarifError::Invalid(format!(
                "runs[{r}].tool.driver.name holds a NUL character"
            )));
        }
        for (i, result) in run
            .results
            .as_deref()
            .unwrap_or_default()
            .iter()
            .enumerate()
        {
            let texts = [result.rule_id.as_deref(), result.message.text.as_deref()];
            if texts.into_iter().flatten().any(|t| t.contains('\0')) {
                return Err(SarifError::Invalid(format!(
                    "runs[{r}].results[{i}]: its ruleId or message holds a NUL character"
                )));
            }
        }
    }
    Ok(())
}

/// One result where it can be placed on a line of a file.
fn finding(
    tool: &str,
    rules: &[sarif::ReportingDescriptor],
    result: &sarif::Result,
    root: Option<&str>,
) -> Option<ToolFinding> {
    let rule = result
        .rule_id
        .clone()
        .or_else(|| {
            let index = usize::try_from(result.rule_index?).ok()?;
            rules.get(index).map(|r| r.id.clone())
        })
        .unwrap_or_else(|| "result".into());
    let descriptor = rules.iter().find(|r| r.id == rule);
    let physical = result
        .locations
        .as_deref()?
        .iter()
        .find_map(|l| l.physical_location.as_ref())?;
    let uri = physical.artifact_location.as_ref()?.uri.as_deref()?;
    let line = u32::try_from(physical.region.as_ref()?.start_line?)
        .ok()
        .filter(|l| *l > 0)?;
    let level = result
        .level
        .as_ref()
        .and_then(level_name)
        .or_else(|| {
            descriptor
                .and_then(|d| d.default_configuration.as_ref())
                .and_then(|c| c.level.as_ref())
                .and_then(level_name)
        })
        .unwrap_or_else(|| "warning".into());
    let message = result
        .message
        .text
        .clone()
        .or_else(|| result.message.markdown.clone())
        .or_else(|| {
            descriptor
                .and_then(|d| d.short_description.as_ref())
                .map(|s| s.text.clone())
        })
        .unwrap_or_else(|| rule.clone());
    Some(ToolFinding {
        tool: tool.to_owned(),
        rule,
        path: relative(uri, root)?,
        line,
        severity: match level.as_str() {
            "error" => Severity::Error,
            "warning" => Severity::Warning,
            _ => Severity::Info,
        },
        message,
    })
}

/// The first non-blank line of a tool's message, cut short.
/// The message on one line, whitespace collapsed, up to 200 characters: a
/// tool's first line is often only a heading ("Error while running rules:").
fn one_line(text: &str) -> String {
    let joined = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if joined.is_empty() {
        return "an error without a message".to_owned();
    }
    joined.chars().take(200).collect()
}

fn level_name(value: &impl serde::Serialize) -> Option<String> {
    serde_json::to_value(value)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
}

#[cfg(test)]
mod tests;

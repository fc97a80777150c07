//! Clippy, where the runner has a Rust toolchain: `cargo clippy` in the
//! checkout's workspace, its JSON messages as findings. It compiles the
//! project (build scripts and procedural macros are the repository's code), so
//! it runs only where the repository's own programs may, and offline (the
//! dependencies must already be in the runner's cargo cache).

use super::linters::{Invocation, OutputKind};
use reviewd_domain::model::grade::Severity;
use reviewd_domain::review::tools::ToolFinding;
use serde::Deserialize;

/// `cargo clippy` when a Rust file changed and the checkout is a cargo project.
#[must_use]
pub fn clippy(files: &[String], is_cargo_project: bool) -> Option<Invocation> {
    let rust = files.iter().any(|f| f.ends_with(".rs"));
    (rust && is_cargo_project).then(|| Invocation {
        tool: "clippy".into(),
        argv: [
            "cargo",
            "clippy",
            "--quiet",
            "--offline",
            "--all-targets",
            "--message-format=json",
        ]
        .map(String::from)
        .to_vec(),
        output: OutputKind::CargoJson,
    })
}

#[derive(Deserialize)]
struct Line {
    reason: String,
    #[serde(default)]
    message: Option<Diagnostic>,
    #[serde(default)]
    success: Option<bool>,
}

#[derive(Deserialize)]
struct Diagnostic {
    message: String,
    level: String,
    code: Option<Code>,
    spans: Vec<Span>,
}

#[derive(Deserialize)]
struct Code {
    code: String,
}

#[derive(Deserialize)]
struct Span {
    file_name: String,
    line_start: u32,
    is_primary: bool,
}

/// Cargo's JSON lines as findings: each lint's (and compiler error's) primary
/// span. A run that did not finish (no toolchain, a dependency not cached) is
/// an error, not "no findings".
///
/// # Errors
/// The build did not finish, or its output is not cargo's JSON.
pub fn read_cargo_json(out: &[u8]) -> Result<Vec<ToolFinding>, String> {
    let mut found = Vec::new();
    let mut finished = None;
    for raw in out.split(|b| *b == b'\n').filter(|l| !l.is_empty()) {
        let line: Line = serde_json::from_slice(raw).map_err(|e| e.to_string())?;
        match (line.reason.as_str(), line.message) {
            ("compiler-message", Some(d)) => found.extend(finding(d)),
            ("build-finished", _) => finished = line.success,
            _ => {}
        }
    }
    // Clippy's errors (a `deny` lint) fail the build but are findings.
    if finished == Some(true) || (finished.is_some() && !found.is_empty()) {
        Ok(found)
    } else {
        Err("cargo clippy did not finish (see the task's log)".into())
    }
}

fn finding(d: Diagnostic) -> Option<ToolFinding> {
    let span = d.spans.into_iter().find(|s| s.is_primary)?;
    let severity = match d.level.as_str() {
        "error" => Severity::Error,
        "warning" => Severity::Warning,
        _ => return None,
    };
    Some(ToolFinding {
        tool: "clippy".into(),
        rule: d.code.map_or_else(|| "compiler".into(), |c| c.code),
        path: span.file_name.trim_start_matches("./").to_owned(),
        line: span.line_start,
        severity,
        message: d.message,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lints_become_findings_and_an_unfinished_build_is_an_error() {
        let out = br#"{"reason":"compiler-artifact","package_id":"x"}
{"reason":"compiler-message","message":{"message":"used `unwrap()` on an `Option` value","level":"warning","code":{"code":"clippy::unwrap_used","explanation":null},"spans":[{"file_name":"src/main.rs","line_start":4,"is_primary":true}],"rendered":"..."}}
{"reason":"compiler-message","message":{"message":"2 warnings emitted","level":"warning","code":null,"spans":[]}}
{"reason":"build-finished","success":true}
"#;
        let found = read_cargo_json(out).unwrap();
        assert_eq!(found.len(), 1);
        let f = &found[0];
        assert_eq!(
            (f.rule.as_str(), f.path.as_str(), f.line),
            ("clippy::unwrap_used", "src/main.rs", 4)
        );
        assert_eq!(f.severity, Severity::Warning);
        assert!(read_cargo_json(b"").is_err(), "no toolchain: nothing ran");
        let failed = br#"{"reason":"build-finished","success":false}"#;
        assert!(read_cargo_json(failed).is_err(), "a dependency not cached");
        assert!(clippy(&["src/a.rs".into()], false).is_none());
        assert!(clippy(&["a.py".into()], true).is_none());
        assert!(clippy(&["src/a.rs".into()], true).is_some());
    }
}

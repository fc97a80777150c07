//! The tools' own JSON (where they write no SARIF) as findings: shellcheck's
//! `json1` and ESLint's JSON formatter.

use reviewd_domain::model::grade::Severity;
use reviewd_domain::review::tools::ToolFinding;
use serde::Deserialize;

#[derive(Deserialize)]
struct ShellcheckOutput {
    comments: Vec<ShellcheckComment>,
}

#[derive(Deserialize)]
struct ShellcheckComment {
    file: String,
    line: u32,
    level: String,
    code: u32,
    message: String,
}

/// Shellcheck's `json1` output as findings.
///
/// # Errors
/// The output is not `json1`.
pub fn read_shellcheck(out: &[u8]) -> Result<Vec<ToolFinding>, String> {
    let parsed: ShellcheckOutput = serde_json::from_slice(out).map_err(|e| e.to_string())?;
    Ok(parsed
        .comments
        .into_iter()
        .map(|c| ToolFinding {
            tool: "shellcheck".into(),
            rule: format!("SC{}", c.code),
            path: c.file.trim_start_matches("./").to_owned(),
            line: c.line,
            severity: match c.level.as_str() {
                "error" => Severity::Error,
                "warning" => Severity::Warning,
                _ => Severity::Info,
            },
            message: c.message,
        })
        .collect())
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct EslintFile {
    file_path: String,
    messages: Vec<EslintMessage>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct EslintMessage {
    rule_id: Option<String>,
    severity: u8,
    message: String,
    line: Option<u32>,
}

/// ESLint's JSON output as findings, paths made relative to `root`.
///
/// # Errors
/// The output is not ESLint's JSON.
pub fn read_eslint(out: &[u8], root: &str) -> Result<Vec<ToolFinding>, String> {
    let parsed: Vec<EslintFile> = serde_json::from_slice(out).map_err(|e| e.to_string())?;
    let prefix = format!("{}/", root.trim_end_matches('/'));
    Ok(parsed
        .into_iter()
        .flat_map(|file| {
            let path = file
                .file_path
                .strip_prefix(&prefix)
                .unwrap_or(&file.file_path)
                .to_owned();
            file.messages.into_iter().filter_map(move |m| {
                Some(ToolFinding {
                    tool: "eslint".into(),
                    rule: m.rule_id.unwrap_or_else(|| "parse".into()),
                    path: path.clone(),
                    line: m.line?,
                    severity: if m.severity >= 2 {
                        Severity::Error
                    } else {
                        Severity::Warning
                    },
                    message: m.message,
                })
            })
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shellcheck_and_eslint_output_become_findings() {
        let sc = br#"{"comments":[{"file":"./deploy.sh","line":3,"endLine":3,"column":6,"endColumn":10,"level":"info","code":2086,"message":"Double quote to prevent globbing and word splitting.","fix":null}]}"#;
        let f = &read_shellcheck(sc).unwrap()[0];
        assert_eq!(
            (f.rule.as_str(), f.path.as_str(), f.line),
            ("SC2086", "deploy.sh", 3)
        );
        let es = br#"[{"filePath":"/w/t/web/x.ts","messages":[{"ruleId":"no-eval","severity":2,"message":"eval can be harmful.","line":7,"column":1},{"ruleId":null,"severity":2,"message":"Parsing error","line":null}]}]"#;
        let found = read_eslint(es, "/w/t").unwrap();
        assert_eq!(found.len(), 1);
        assert_eq!(
            (found[0].path.as_str(), found[0].severity),
            ("web/x.ts", Severity::Error)
        );
        assert!(read_shellcheck(b"not json").is_err());
    }
}

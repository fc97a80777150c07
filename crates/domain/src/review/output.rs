//! What the model is asked to answer for a file, and how its answer is read.

use super::rating::Severity;
use serde::Deserialize;

/// The JSON Schema sent with each request (structured output).
#[must_use]
pub fn schema() -> serde_json::Value {
    serde_json::json!({
        "type": "object",
        "additionalProperties": false,
        "required": ["summary", "comments"],
        "properties": {
            "summary": { "type": "string", "description": "One or two sentences on the change to this file." },
            "comments": {
                "type": "array",
                "items": {
                    "type": "object",
                    "additionalProperties": false,
                    "required": ["line", "severity", "message"],
                    "properties": {
                        "line": { "type": "integer", "description": "Line number in the NEW version of the file." },
                        "severity": { "type": "string", "enum": ["info", "warning", "error"] },
                        "message": { "type": "string" }
                    }
                }
            }
        }
    })
}

/// A comment as the model proposed it, before it is placed on the diff.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProposedComment {
    pub line: u32,
    pub severity: Severity,
    pub message: String,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileAnswer {
    pub summary: String,
    pub comments: Vec<ProposedComment>,
}

/// Why an answer could not be used; the call is retried, then logged as failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unusable model answer: {0}")]
pub struct OutputError(pub String);

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawAnswer {
    summary: String,
    comments: Vec<RawComment>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawComment {
    line: i64,
    severity: String,
    message: String,
}

/// Makes model-written text inert on the platforms: a line starting with `/` would be
/// run by GitLab as a quick action (`/approve`, `/merge`...) under the bot's token, so
/// such lines get a zero-width space in front. The text reads the same.
#[must_use]
pub fn defuse(text: &str) -> String {
    text.lines()
        .map(|line| {
            if line.trim_start().starts_with('/') {
                format!("\u{200B}{line}")
            } else {
                line.to_owned()
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Longest comment kept; longer ones are cut so a runaway answer cannot flood an MR.
const MAX_MESSAGE_CHARS: usize = 2000;

/// Reads an answer. Code fences around the JSON are tolerated (some servers ignore
/// the schema); anything else off-schema is an error.
///
/// # Errors
/// `OutputError` naming what is wrong.
pub fn parse(content: &str) -> Result<FileAnswer, OutputError> {
    let text = content.trim();
    let text = text
        .strip_prefix("```json")
        .or_else(|| text.strip_prefix("```"))
        .and_then(|t| t.strip_suffix("```"))
        .unwrap_or(text)
        .trim();
    let raw: RawAnswer = serde_json::from_str(text).map_err(|e| OutputError(e.to_string()))?;
    let mut comments = Vec::with_capacity(raw.comments.len());
    for c in raw.comments {
        // Models put file-level remarks on line 0: skip them rather than lose the answer.
        let Some(line) = u32::try_from(c.line).ok().filter(|l| *l > 0) else {
            continue;
        };
        let severity = c.severity.parse().map_err(OutputError)?;
        let message = c.message.trim();
        if message.is_empty() {
            continue;
        }
        let message: String = message.chars().take(MAX_MESSAGE_CHARS).collect();
        comments.push(ProposedComment {
            line,
            severity,
            message: defuse(&message),
        });
    }
    Ok(FileAnswer {
        summary: defuse(raw.summary.trim()),
        comments,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_valid_answers_with_or_without_fences() {
        let json = r#"{"summary":"Adds a cache.","comments":[{"line":12,"severity":"warning","message":" unbounded growth "},{"line":3,"severity":"info","message":""}]}"#;
        let a = parse(json).unwrap();
        assert_eq!(a.summary, "Adds a cache.");
        assert_eq!(
            a.comments,
            vec![ProposedComment {
                line: 12,
                severity: Severity::Warning,
                message: "unbounded growth".into()
            }]
        );
        assert_eq!(parse(&format!("```json\n{json}\n```")).unwrap(), a);
    }

    #[test]
    fn comments_off_any_line_are_skipped_and_quick_actions_defused() {
        let a = parse(r#"{"summary":"ok\n/approve","comments":[{"line":0,"severity":"info","message":"file-level"},{"line":-4,"severity":"info","message":"m"},{"line":3,"severity":"error","message":"Bad.\n/merge"}]}"#).unwrap();
        assert_eq!(a.comments.len(), 1);
        assert_eq!(a.comments[0].message, "Bad.\n\u{200B}/merge");
        assert!(
            !a.summary.lines().any(|l| l.starts_with('/')),
            "no line starts a quick action"
        );
    }

    #[test]
    fn rejects_off_schema_answers() {
        for bad in [
            "Looks good to me!",
            r#"{"summary":"x"}"#,
            r#"{"summary":"x","comments":[{"line":1,"severity":"fatal","message":"m"}]}"#,
            r#"{"summary":"x","comments":[],"score":3}"#,
        ] {
            assert!(parse(bad).is_err(), "{bad}");
        }
        let schema = schema();
        assert_eq!(
            schema["properties"]["comments"]["items"]["properties"]["severity"]["enum"],
            serde_json::json!(["info", "warning", "error"])
        );
    }
}

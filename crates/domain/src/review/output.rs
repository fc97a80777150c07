//! What the model is asked to answer for a file, and how its answer is read.

use super::rating::Severity;
use super::suggestion::Suggestion;
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
                    // Strict structured output wants every property required: the
                    // optional suggestion is a required field that may be null.
                    "required": ["line", "severity", "message", "suggestion"],
                    "properties": {
                        "line": { "type": "integer", "description": "Line number in the NEW version of the file." },
                        "severity": { "type": "string", "enum": ["info", "warning", "error"] },
                        "message": { "type": "string" },
                        "suggestion": {
                            "description": "Replacement code for NEW lines startLine..endLine (the comment's line among them, at most 50 lines, all shown in the diff), or null.",
                            "anyOf": [
                                {
                                    "type": "object",
                                    "additionalProperties": false,
                                    "required": ["startLine", "endLine", "code"],
                                    "properties": {
                                        "startLine": { "type": "integer" },
                                        "endLine": { "type": "integer" },
                                        "code": { "type": "string", "description": "Exactly what those lines should read, indentation included; no diff markers, line numbers or Markdown fence." }
                                    }
                                },
                                { "type": "null" }
                            ]
                        }
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
    /// Replacement code the model proposed, checked on its own (see
    /// [`Suggestion::checked`]); whether it fits the diff is decided when the
    /// comment is placed.
    pub suggestion: Option<Suggestion>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileAnswer {
    pub summary: String,
    pub comments: Vec<ProposedComment>,
    /// The model's word on the analyzers' findings it was shown (none when it was
    /// shown none).
    pub verdicts: Vec<super::tools::evidence::Verdict>,
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
    /// Asked for only when the prompt lists tool findings; read loosely (a
    /// malformed verdict costs only itself).
    #[serde(default, rename = "toolFindings")]
    tool_findings: Vec<serde_json::Value>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawComment {
    line: i64,
    severity: String,
    message: String,
    /// Read loosely: a malformed suggestion costs only itself, not the answer.
    #[serde(default)]
    suggestion: Option<serde_json::Value>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct RawSuggestion {
    start_line: i64,
    end_line: i64,
    code: String,
}

/// The comment's suggestion when there is a usable one; an unusable one is logged
/// and dropped.
fn suggestion(line: u32, raw: Option<serde_json::Value>) -> Option<Suggestion> {
    let raw = raw.filter(|v| !v.is_null())?;
    let checked = serde_json::from_value::<RawSuggestion>(raw)
        .map_err(|e| e.to_string())
        .and_then(|s| {
            Suggestion::checked(line, s.start_line, s.end_line, &s.code).map_err(|e| e.to_string())
        });
    match checked {
        Ok(s) => Some(s),
        Err(reason) => {
            tracing::info!(line, reason = %reason, "review.suggestion_dropped");
            None
        }
    }
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

/// An answer's JSON without the code fence some servers wrap it in despite the
/// schema.
#[must_use]
pub fn unfenced(content: &str) -> &str {
    let text = content.trim();
    text.strip_prefix("```json")
        .or_else(|| text.strip_prefix("```"))
        .and_then(|t| t.strip_suffix("```"))
        .unwrap_or(text)
        .trim()
}

/// Longest comment kept; longer ones are cut so a runaway answer cannot flood an MR.
const MAX_MESSAGE_CHARS: usize = 2000;

/// Reads an answer. Code fences around the JSON are tolerated (some servers ignore
/// the schema); anything else off-schema is an error.
///
/// # Errors
/// `OutputError` naming what is wrong.
pub fn parse(content: &str) -> Result<FileAnswer, OutputError> {
    let raw: RawAnswer =
        serde_json::from_str(unfenced(content)).map_err(|e| OutputError(e.to_string()))?;
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
            suggestion: suggestion(line, c.suggestion),
        });
    }
    let verdicts = raw
        .tool_findings
        .into_iter()
        .filter_map(|v| serde_json::from_value(v).ok())
        .collect();
    Ok(FileAnswer {
        summary: defuse(raw.summary.trim()),
        comments,
        verdicts,
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
                message: "unbounded growth".into(),
                suggestion: None,
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

    #[test]
    fn a_suggestion_is_read_with_its_comment_and_dropped_alone_when_unusable() {
        let answer = parse(
            r#"{"summary":"s","comments":[
                {"line":4,"severity":"warning","message":"Handle the error.","suggestion":{"startLine":4,"endLine":5,"code":"let x = foo()?;\r\nrun(x);\n"}},
                {"line":7,"severity":"info","message":"No suggestion.","suggestion":null},
                {"line":8,"severity":"info","message":"Old model, no field."},
                {"line":9,"severity":"error","message":"Backwards.","suggestion":{"startLine":9,"endLine":2,"code":"x"}},
                {"line":10,"severity":"error","message":"Too long.","suggestion":{"startLine":10,"endLine":70,"code":"x"}},
                {"line":11,"severity":"error","message":"Elsewhere.","suggestion":{"startLine":30,"endLine":31,"code":"x"}},
                {"line":12,"severity":"error","message":"Malformed.","suggestion":{"start":12,"code":"x"}},
                {"line":13,"severity":"error","message":"Quick action.","suggestion":{"startLine":13,"endLine":13,"code":"/merge"}}
            ]}"#,
        )
        .unwrap();
        assert_eq!(answer.comments.len(), 8, "every comment is kept");
        assert_eq!(
            answer.comments[0].suggestion,
            Some(Suggestion {
                start_line: 4,
                end_line: 5,
                code: "let x = foo()?;\nrun(x);".into()
            })
        );
        assert!(
            answer.comments[1..].iter().all(|c| c.suggestion.is_none()),
            "{:?}",
            answer.comments
        );
        let item = &schema()["properties"]["comments"]["items"];
        assert!(
            item["required"]
                .as_array()
                .unwrap()
                .contains(&serde_json::json!("suggestion")),
            "strict mode: every property is required, the suggestion nullable"
        );
        assert_eq!(item["properties"]["suggestion"]["anyOf"][1]["type"], "null");
    }

    /// What OpenAI's strict structured output demands of every object in a schema:
    /// all its properties required, no others allowed.
    fn assert_strict(schema: &serde_json::Value, at: &str) {
        if let Some(properties) = schema.get("properties").and_then(|p| p.as_object()) {
            let mut required: Vec<&str> = schema["required"]
                .as_array()
                .unwrap_or_else(|| panic!("{at}: no required list"))
                .iter()
                .filter_map(|r| r.as_str())
                .collect();
            let mut listed: Vec<&str> = properties.keys().map(String::as_str).collect();
            required.sort_unstable();
            listed.sort_unstable();
            assert_eq!(required, listed, "{at}: every property is required");
            assert_eq!(schema["additionalProperties"], false, "{at}");
            for (name, property) in properties {
                assert_strict(property, &format!("{at}.{name}"));
            }
        }
        if let Some(items) = schema.get("items") {
            assert_strict(items, &format!("{at}[]"));
        }
        if let Some(options) = schema.get("anyOf").and_then(|a| a.as_array()) {
            for option in options {
                assert_strict(option, &format!("{at}|"));
            }
        }
    }

    #[test]
    fn the_schema_is_valid_for_strict_structured_output() {
        assert_strict(&schema(), "answer");
    }
}

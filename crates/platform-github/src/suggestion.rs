//! A review comment as GitHub takes it: with a suggestion, the comment spans the
//! lines it replaces (`start_line` to `line` on the `RIGHT` side; one line needs
//! only `line`) and its body ends with a ```` ```suggestion ```` block, which the
//! author commits in one click.
//! <https://docs.github.com/en/rest/pulls/reviews#create-a-review-for-a-pull-request>

use reviewd_domain::model::diff::InlineComment;
use reviewd_domain::review::suggestion::fence;
use serde_json::{Value, json};

/// One entry of a review's `comments`.
pub(crate) fn review_comment(comment: &InlineComment) -> Value {
    let Some(s) = &comment.suggestion else {
        return json!({ "path": comment.file_path, "line": comment.line, "side": "RIGHT", "body": comment.body });
    };
    let fence = fence(&s.code);
    let code = if s.code.is_empty() {
        String::new()
    } else {
        format!("{}\n", s.code)
    };
    // The body keeps its hidden marker, where retries look for it.
    let body = format!("{}\n\n{fence}suggestion\n{code}{fence}", comment.body);
    let mut json =
        json!({ "path": comment.file_path, "line": s.end_line, "side": "RIGHT", "body": body });
    // GitHub refuses a `start_line` that is not before `line`.
    if s.start_line < s.end_line {
        json["start_line"] = json!(s.start_line);
        json["start_side"] = json!("RIGHT");
    }
    json
}

#[cfg(test)]
mod tests {
    use super::*;
    use reviewd_domain::model::diff::Suggestion;

    fn comment(line: u32, suggestion: Option<(u32, u32, &str)>) -> InlineComment {
        InlineComment {
            file_path: "src/app.rs".into(),
            old_path: None,
            line,
            body: "**error**: x\n\n<!-- reviewd:comment:00ff -->".into(),
            suggestion: suggestion.map(|(start_line, end_line, code)| Suggestion {
                start_line,
                end_line,
                code: code.into(),
            }),
        }
    }

    #[test]
    fn a_multi_line_suggestion_spans_its_lines() {
        assert_eq!(
            review_comment(&comment(12, Some((10, 13, "a();\nb();")))),
            json!({
                "path": "src/app.rs", "start_line": 10, "start_side": "RIGHT", "line": 13, "side": "RIGHT",
                "body": "**error**: x\n\n<!-- reviewd:comment:00ff -->\n\n```suggestion\na();\nb();\n```",
            })
        );
    }

    #[test]
    fn one_line_needs_only_line_and_plain_comments_stay_plain() {
        assert_eq!(
            review_comment(&comment(4, Some((4, 4, "let x = foo()?;")))),
            json!({
                "path": "src/app.rs", "line": 4, "side": "RIGHT",
                "body": "**error**: x\n\n<!-- reviewd:comment:00ff -->\n\n```suggestion\nlet x = foo()?;\n```",
            })
        );
        assert_eq!(
            review_comment(&comment(4, None)),
            json!({ "path": "src/app.rs", "line": 4, "side": "RIGHT", "body": "**error**: x\n\n<!-- reviewd:comment:00ff -->" })
        );
        let fenced = review_comment(&comment(4, Some((4, 4, "```sh\nls\n```"))));
        assert!(
            fenced["body"]
                .as_str()
                .unwrap()
                .ends_with("\n\n````suggestion\n```sh\nls\n```\n````")
        );
        let deletion = review_comment(&comment(4, Some((4, 5, ""))));
        assert!(
            deletion["body"]
                .as_str()
                .unwrap()
                .ends_with("```suggestion\n```")
        );
    }
}

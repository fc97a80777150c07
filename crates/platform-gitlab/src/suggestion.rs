//! A line comment's body as GitLab takes it: a suggestion becomes a
//! ```` ```suggestion:-N+M ```` block, whose offsets count lines above (`N`) and
//! below (`M`) the line the comment is on, so the author applies it in one click.
//! <https://docs.gitlab.com/user/project/merge_requests/reviews/suggestions/>

use reviewd_domain::model::diff::InlineComment;
use reviewd_domain::review::suggestion::fence;

/// The text posted for `comment`: its body, then its suggestion's block if it has
/// one (the body's hidden marker stays in it, where retries look for it).
pub(crate) fn comment_body(comment: &InlineComment) -> String {
    let Some(s) = &comment.suggestion else {
        return comment.body.clone();
    };
    // The domain keeps `line` within the suggestion's lines; saturating keeps a
    // broken caller from wrapping around to a huge offset.
    let above = comment.line.saturating_sub(s.start_line);
    let below = s.end_line.saturating_sub(comment.line);
    let fence = fence(&s.code);
    let code = if s.code.is_empty() {
        String::new()
    } else {
        format!("{}\n", s.code)
    };
    format!(
        "{}\n\n{fence}suggestion:-{above}+{below}\n{code}{fence}",
        comment.body
    )
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
            body: "**warning**: x\n\n<!-- reviewd:comment:00ff -->".into(),
            suggestion: suggestion.map(|(start_line, end_line, code)| Suggestion {
                start_line,
                end_line,
                code: code.into(),
            }),
        }
    }

    #[test]
    fn the_block_counts_lines_above_and_below_the_comment() {
        assert_eq!(
            comment_body(&comment(12, Some((10, 13, "a();\nb();")))),
            "**warning**: x\n\n<!-- reviewd:comment:00ff -->\n\n```suggestion:-2+1\na();\nb();\n```"
        );
        assert_eq!(
            comment_body(&comment(4, Some((4, 4, "let x = foo()?;")))),
            "**warning**: x\n\n<!-- reviewd:comment:00ff -->\n\n```suggestion:-0+0\nlet x = foo()?;\n```"
        );
    }

    #[test]
    fn deletions_fenced_code_and_plain_comments() {
        assert!(comment_body(&comment(4, Some((4, 5, "")))).ends_with("```suggestion:-0+1\n```"));
        assert!(
            comment_body(&comment(4, Some((4, 4, "```sh\nls\n```"))))
                .ends_with("\n\n````suggestion:-0+0\n```sh\nls\n```\n````"),
            "a longer fence around code holding one"
        );
        assert_eq!(
            comment_body(&comment(4, None)),
            "**warning**: x\n\n<!-- reviewd:comment:00ff -->"
        );
    }
}

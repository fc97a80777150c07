//! One file's diff through the model: split into pieces, each asked (retried when
//! the answer is off-schema), the answers' comments placed on lines the diff shows.
//! The server's engine and the `reviewd-runner` agent both review with this, so a
//! file reviewed on a runner gets exactly the prompts and placement of the server.

use super::diff_lines::{DiffLines, Placement};
use super::model_chain::{ChainLink, ModelChain};
use super::output::{self, ProposedComment};
use super::tools::{self, PostMode, ToolFinding, evidence};
use super::{chunking, prompt};
use crate::context::{ContextReport, RoundContext, secrets};
use crate::model::diff::ChangeType;
use crate::ports::{ActiveRule, AiCompletion, AiError, AiRequest};
use async_trait::async_trait;
use std::time::{Duration, Instant};

/// How the model is asked.
#[derive(Debug, Clone)]
pub struct AskSettings {
    pub max_tokens: Option<u32>,
    pub temperature: Option<f64>,
    /// Largest diff piece sent in one prompt, in characters.
    pub max_diff_chars: usize,
    /// Attempts per prompt when the answer is unusable (off-schema JSON).
    pub answer_attempts: u32,
}

/// What the prompt is built from besides the diff.
#[derive(Debug, Clone, Copy)]
pub struct FileContext<'a> {
    /// The round's context: the shared part of every prompt, and this file's.
    pub round: &'a RoundContext,
    pub system: &'a str,
    pub rules: &'a [&'a ActiveRule],
    pub path: &'a str,
    pub change_type: ChangeType,
    /// The analyzers' findings of the round (this file's on changed lines are
    /// shown to the model), and which of them are posted.
    pub tools: &'a [ToolFinding],
    pub post: PostMode,
}

/// One call to the model, for the caller to log or count.
#[derive(Debug)]
pub struct ModelCall<'a> {
    pub file_path: &'a str,
    /// The model that was asked (a fallback's when the ones before it failed).
    pub by: &'a ChainLink,
    pub completion: Option<&'a AiCompletion>,
    /// Why the call (or its answer) failed.
    pub error: Option<String>,
    /// Wall time of a failed call (a completion carries its own).
    pub elapsed: Duration,
}

/// Where each call to the model is reported (the AI log on the server, token
/// counts and log lines on a runner).
#[async_trait]
pub trait CallRecorder: Send + Sync {
    async fn record(&self, call: ModelCall<'_>);
}

/// A file's review before it is recorded anywhere.
#[derive(Debug, Clone)]
pub struct FileVerdict {
    /// Comments on lines of the diff (an answer's line outside it is moved to the
    /// nearest changed line, or dropped when none is near); a suggestion only
    /// where it fits (see [`Suggestion::fits`](super::suggestion::Suggestion::fits)).
    pub comments: Vec<ProposedComment>,
    /// The answers' summaries, joined.
    pub summary: String,
    /// The failure that ended the file, if any (comments found before it are kept).
    pub error: Option<AiError>,
    /// What its prompts carried besides the diff.
    pub context: ContextReport,
}

impl FileVerdict {
    /// The provider could not be reached or limited us (worth another attempt later).
    #[must_use]
    pub fn ai_unavailable(&self) -> bool {
        matches!(
            self.error,
            Some(AiError::Unavailable(_) | AiError::RateLimited { .. })
        )
    }
}

/// A file's diff, parsed and split for the model.
#[derive(Debug, Clone)]
pub struct FileReview {
    lines: DiffLines,
    pieces: Vec<String>,
}

impl FileReview {
    #[must_use]
    pub fn new(diff: &str, max_diff_chars: usize) -> Self {
        Self {
            lines: DiffLines::parse(diff),
            pieces: chunking::split(diff, max_diff_chars),
        }
    }

    #[must_use]
    pub fn added_lines(&self) -> usize {
        self.lines.added_count()
    }

    /// Prompts this file needs.
    #[must_use]
    pub fn prompts(&self) -> usize {
        self.pieces.len()
    }

    /// Asks the model about each piece in turn (a fallback when the model fails
    /// it); stops at the first failure.
    pub async fn run(
        &self,
        ai: &ModelChain,
        settings: &AskSettings,
        context: FileContext<'_>,
        recorder: &dyn CallRecorder,
    ) -> FileVerdict {
        let mut comments = Vec::new();
        let mut summaries = Vec::new();
        let mut verdicts = Vec::new();
        let mut error = None;
        let mut report: Option<ContextReport> = None;
        let (findings, _) = tools::on_changed_lines(context.tools, context.path, &self.lines);
        for piece in &self.pieces {
            let gathered = context.round.for_piece(context.path, piece);
            match &mut report {
                Some(r) => r.absorb(gathered.report),
                None => report = Some(gathered.report),
            }
            let shown = DiffLines::parse(piece);
            let shown: Vec<(usize, &ToolFinding)> = findings
                .iter()
                .enumerate()
                .filter(|(_, f)| shown.place(f.line) == Placement::Exact(f.line))
                .collect();
            let asked = (gathered.text.as_str(), shown.as_slice());
            match ask(ai, settings, context, asked, piece, recorder).await {
                Ok(answer) => {
                    summaries.push(answer.summary);
                    // A verdict counts only for a finding this prompt showed.
                    verdicts.extend(
                        answer
                            .verdicts
                            .into_iter()
                            .filter(|v| shown.iter().any(|(i, _)| evidence::id(*i) == v.id)),
                    );
                    comments.extend(
                        answer
                            .comments
                            .into_iter()
                            .filter_map(|c| place(&self.lines, context.path, c)),
                    );
                }
                Err(e) => {
                    error = Some(e);
                    break;
                }
            }
        }
        let (posted, evidence) =
            tools::merge::merge(&findings, &verdicts, &mut comments, context.post);
        comments.extend(posted);
        let mut report = report.unwrap_or_default();
        report.tools = evidence;
        FileVerdict {
            comments,
            summary: summaries
                .into_iter()
                .filter(|s| !s.is_empty())
                .collect::<Vec<_>>()
                .join(" "),
            error,
            context: report,
        }
    }

    /// The file without a model (none is configured, or a runner has none): the
    /// findings that need no confirmation (secrets; all of them under `post: all`)
    /// as its comments.
    #[must_use]
    pub fn tools_only(&self, path: &str, found: &[ToolFinding], post: PostMode) -> FileVerdict {
        let (findings, _) = tools::on_changed_lines(found, path, &self.lines);
        let (comments, evidence) = tools::merge::merge(&findings, &[], &mut [], post);
        FileVerdict {
            comments,
            summary: String::new(),
            error: None,
            context: ContextReport {
                tools: evidence,
                ..ContextReport::default()
            },
        }
    }
}

/// A comment on the line the diff shows (moved to the nearest added line, or
/// `None` off every hunk), with its suggestion only when that fits the diff.
pub fn place(lines: &DiffLines, path: &str, c: ProposedComment) -> Option<ProposedComment> {
    let placement = lines.place(c.line);
    let (Placement::Exact(line) | Placement::Nearest(line)) = placement else {
        return None;
    };
    let suggestion = c.suggestion.and_then(|s| match s.fits(lines, c.line, placement) {
        Ok(()) => Some(s),
        Err(reason) => {
            tracing::info!(file = %path, line = c.line, reason = %reason, "review.suggestion_dropped");
            None
        }
    });
    Some(ProposedComment {
        line,
        suggestion,
        ..c
    })
}

/// One prompt to the first model of the chain that answers it; every call is
/// reported.
async fn ask(
    ai: &ModelChain,
    settings: &AskSettings,
    context: FileContext<'_>,
    (gathered, findings): (&str, &[(usize, &ToolFinding)]),
    piece: &str,
    recorder: &dyn CallRecorder,
) -> Result<output::FileAnswer, AiError> {
    let (piece, _) = secrets::mask_diff(piece);
    // Asked about findings only when this piece shows some: a prompt without
    // them is the prompt of a review without tools.
    let gathered = format!("{gathered}{}", evidence::section(findings));
    let schema = if findings.is_empty() {
        output::schema()
    } else {
        evidence::schema_with_findings(output::schema())
    };
    let request = AiRequest {
        model: String::new(),
        system: context.system.to_owned(),
        shared: Some(context.round.shared().to_owned()).filter(|s| !s.is_empty()),
        user: prompt::user_prompt(
            context.path,
            context.change_type,
            context.rules,
            &gathered,
            &piece,
        ),
        max_tokens: settings.max_tokens,
        temperature: settings.temperature,
        json_schema: Some(("file_review".into(), schema)),
    };
    let reported = (context.path, recorder);
    ask_chain(
        ai,
        &request,
        settings.answer_attempts,
        reported,
        |content| output::parse(content).map_err(|e| e.to_string()),
    )
    .await
}

/// `request` to each model of the chain in turn (each asked for its own model)
/// until one gives an answer `parse` takes, or fails in a way the next would share.
pub(crate) async fn ask_chain<T>(
    ai: &ModelChain,
    request: &AiRequest,
    attempts: u32,
    reported: (&str, &dyn CallRecorder),
    parse: impl Fn(&str) -> Result<T, String>,
) -> Result<T, AiError> {
    let parse = &parse;
    ai.first_answer(|link| async move {
        let request = AiRequest {
            model: link.model.clone(),
            ..request.clone()
        };
        ask_model(link, &request, attempts, reported, parse).await
    })
    .await
}

/// One prompt to one model, asked again (up to `attempts` calls in all) while
/// `parse` finds the answer unusable; each call is reported under `path`.
pub(crate) async fn ask_model<T>(
    link: &ChainLink,
    request: &AiRequest,
    attempts: u32,
    (file_path, recorder): (&str, &dyn CallRecorder),
    parse: impl Fn(&str) -> Result<T, String>,
) -> Result<T, AiError> {
    let mut last = AiError::InvalidResponse("no attempt made".into());
    for _ in 0..attempts.max(1) {
        let started = Instant::now();
        let answer = match link.provider.complete(request).await {
            Ok(completion) => {
                let parsed = parse(&completion.content);
                let error = parsed.as_ref().err().cloned();
                recorder
                    .record(ModelCall {
                        file_path,
                        by: link,
                        completion: Some(&completion),
                        error,
                        elapsed: started.elapsed(),
                    })
                    .await;
                parsed.map_err(AiError::InvalidResponse)
            }
            Err(e) => {
                recorder
                    .record(ModelCall {
                        file_path,
                        by: link,
                        completion: None,
                        error: Some(e.to_string()),
                        elapsed: started.elapsed(),
                    })
                    .await;
                Err(e)
            }
        };
        match answer {
            Ok(answer) => return Ok(answer),
            Err(e @ AiError::InvalidResponse(_)) => last = e,
            Err(e) => return Err(e),
        }
    }
    Err(last)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::review::rating::Severity;
    use crate::review::suggestion::Suggestion;

    fn proposed(line: u32, start: u32, end: u32) -> ProposedComment {
        ProposedComment {
            line,
            severity: Severity::Warning,
            message: "m".into(),
            suggestion: Some(Suggestion {
                start_line: start,
                end_line: end,
                code: "fixed();".into(),
            }),
        }
    }

    #[test]
    fn a_placed_comment_keeps_its_suggestion_only_where_it_fits() {
        // New side: 1 context, 2 and 3 added, 4 context.
        let lines = DiffLines::parse("@@ -1,3 +1,4 @@\n a\n-b\n+B\n+C\n d\n");
        let kept = place(&lines, "a.rs", proposed(2, 1, 3)).unwrap();
        assert_eq!((kept.line, kept.suggestion.is_some()), (2, true));

        let moved = place(&lines, "a.rs", proposed(4, 4, 4)).unwrap();
        assert_eq!(
            (moved.line, moved.suggestion),
            (3, None),
            "moved to the nearest added line, posted without the suggestion"
        );
        let beyond = place(&lines, "a.rs", proposed(3, 3, 5)).unwrap();
        assert_eq!(
            (beyond.line, beyond.suggestion),
            (3, None),
            "line 5 is not shown"
        );
        assert_eq!(place(&lines, "a.rs", proposed(9, 9, 9)), None);
    }
}

//! Answers the model gives: a question about the MR, and a word in one of
//! reviewd's threads about its finding.

use super::ConversationService;
use super::talk::{Answer, Talk};
use crate::model::conversation::{LearningSource, NewLearning};
use crate::model::diff::{CommentThread, MergeRequestDiff};
use crate::review::answer::{self, Question, Said};
use crate::review::markers;
use crate::services::review_engine::Failure;

/// Characters of the MR's diff a question about the whole MR is given.
pub(super) const MR_DIFF_CHARS: usize = 24_000;

pub(super) const SPENT: &str = "This project's AI budget for the month is spent, so I can't answer until it is raised or the month ends.";

impl ConversationService {
    /// `ask <question>`: a question about the MR.
    pub(super) async fn answer_question_text(
        &self,
        talk: &Talk,
        question: &str,
    ) -> Result<Answer, Failure> {
        self.ask_model(talk, None, question).await
    }

    /// A mention (`thread` none) or a word in one of reviewd's threads.
    pub(super) async fn answer_question(
        &self,
        talk: &Talk,
        thread: Option<&CommentThread>,
    ) -> Result<Answer, Failure> {
        let body = talk.conversation.body.clone();
        self.ask_model(talk, thread, &body).await
    }

    async fn ask_model(
        &self,
        talk: &Talk,
        thread: Option<&CommentThread>,
        question: &str,
    ) -> Result<Answer, Failure> {
        let Some((mr, diff)) = self.mr_for_model(talk).await? else {
            return Ok(Answer::says(SPENT));
        };
        let c = &talk.conversation;
        let learnings = self.parts.learnings.learnings(talk.project.id).await?;
        // The finding and the code it is on; the whole diff for a question.
        let finding = match thread {
            Some(t) => self.finding(talk, t).await?,
            None => None,
        };
        let code = match &finding {
            Some((_, path, _)) => file_diff(&diff, path),
            None => Some(mr_diff(&diff)),
        };
        let earlier: Vec<Said<'_>> = thread
            .map(|t| {
                t.replies
                    .iter()
                    .take_while(|r| r.id != c.note_id)
                    .map(|r| Said {
                        username: &r.username,
                        body: &r.body,
                    })
                    .collect()
            })
            .unwrap_or_default();
        let finding_body = thread.map(|t| answer::postable(&t.body));
        let q = Question {
            mr_title: &mr.title,
            mr_description: mr.description.as_deref(),
            finding: finding_body
                .as_deref()
                .zip(finding.as_ref())
                .map(|(body, (_, path, line))| (body, path.as_str(), *line)),
            code: code.as_deref(),
            thread: earlier,
            question,
            learnings: learnings.iter().map(|l| l.text.as_str()).collect(),
        };
        let reply = self.complete(talk, answer::prompt(&q)).await?;
        let reply = answer::read_reply(&reply).map_err(Failure::transient)?;
        if let Some(lesson) = reply.lesson.as_ref().filter(|_| thread.is_some()) {
            self.parts
                .learnings
                .add_learning(NewLearning {
                    project_id: talk.project.id,
                    text: lesson.chars().take(2_000).collect(),
                    source: LearningSource::Model,
                    author: Some(c.author.username.clone()),
                    mr_iid: Some(c.mr_iid),
                })
                .await?;
        }
        Ok(Answer {
            text: answer::postable(&reply.answer),
            concede: thread.is_some() && reply.finding_stands == Some(false),
        })
    }

    /// The finding a thread is about: its fingerprint, file and line, as recorded
    /// when reviewd posted it.
    async fn finding(
        &self,
        talk: &Talk,
        thread: &CommentThread,
    ) -> Result<Option<(String, String, i64)>, Failure> {
        let Some(fp) = markers::comment_fingerprint(&thread.body) else {
            return Ok(None);
        };
        let posted = self
            .parts
            .feedback_store
            .find_posted_comment(talk.project.id, talk.conversation.mr_iid, fp)
            .await?;
        Ok(posted.map(|p| (fp.to_owned(), p.file_path, i64::from(p.line_number))))
    }
}

/// The diff of the finding's file (none for a file the context rules keep secret).
fn file_diff(diff: &MergeRequestDiff, path: &str) -> Option<String> {
    if crate::context::secrets::is_secret_file(path) {
        return None;
    }
    let file = diff.files.iter().find(|f| f.new_path == path)?;
    Some(crate::context::secrets::mask_diff(file.diff.as_deref()?).0)
}

/// The MR's diff, file by file, cut to a prompt's share.
pub(super) fn mr_diff(diff: &MergeRequestDiff) -> String {
    let mut out = String::new();
    for f in &diff.files {
        if crate::context::secrets::is_secret_file(&f.new_path) {
            continue;
        }
        out.push_str(&format!("--- {}\n", f.new_path));
        out.push_str(f.diff.as_deref().unwrap_or(""));
        out.push('\n');
        if out.len() > MR_DIFF_CHARS {
            break;
        }
    }
    let (masked, _) = crate::context::secrets::mask_diff(&out);
    masked.chars().take(MR_DIFF_CHARS).collect()
}

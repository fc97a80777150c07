//! The rows the review engine works with: a review's head (what a round needs to
//! know about it) and where one of its files sits.

use crate::error::corrupt;
use crate::schema::{review_files, review_rounds, reviews};
use diesel::prelude::*;
use reviewd_domain::model::review::{Review, ReviewStatus, RoundRef};
use reviewd_domain::ports::RepoError;
use uuid::Uuid;

#[derive(Debug, Queryable, Selectable)]
#[diesel(table_name = reviews, check_for_backend(diesel::pg::Pg))]
pub(crate) struct ReviewRow {
    id: Uuid,
    project_id: Uuid,
    mr_iid: i64,
    status: String,
    head_commit_sha: String,
    round_number: i32,
    summary_comment_id: Option<String>,
    comment_count: i32,
    overall_rating: Option<String>,
    score: Option<i32>,
    error_message: Option<String>,
}

impl TryFrom<ReviewRow> for Review {
    type Error = RepoError;

    fn try_from(r: ReviewRow) -> Result<Self, RepoError> {
        let status = match r.status.as_str() {
            "pending" => ReviewStatus::Pending,
            "completed" => ReviewStatus::Completed,
            "failed" => ReviewStatus::Failed,
            other => return Err(corrupt(format!("review {}: status `{other}`", r.id))),
        };
        let grade = match (r.overall_rating.as_deref(), r.score) {
            (Some(rating), Some(score)) => Some((
                rating.parse().map_err(|e: String| corrupt(e))?,
                u32::try_from(score).unwrap_or(0),
            )),
            _ => None,
        };
        Ok(Review {
            grade,
            error_message: r.error_message,
            id: r.id.into(),
            project_id: r.project_id.into(),
            mr_iid: r.mr_iid,
            status,
            head_commit_sha: r.head_commit_sha,
            round_number: r.round_number,
            summary_comment_id: r.summary_comment_id,
            comment_count: r.comment_count,
        })
    }
}

/// A review file's paths and its round (`review_files` joined to `review_rounds`).
#[derive(Debug, Queryable, Selectable)]
#[diesel(table_name = review_files, check_for_backend(diesel::pg::Pg))]
pub(crate) struct FileRefRow {
    file_path: String,
    old_path: Option<String>,
    #[diesel(select_expression = review_rounds::id)]
    round_id: Uuid,
    #[diesel(select_expression = review_rounds::round_number)]
    round_number: i32,
}

impl FileRefRow {
    /// The file's path, its old path (a rename) and its round.
    pub(crate) fn into_parts(self) -> (String, Option<String>, RoundRef) {
        (
            self.file_path,
            self.old_path,
            RoundRef {
                id: self.round_id,
                number: self.round_number,
            },
        )
    }
}

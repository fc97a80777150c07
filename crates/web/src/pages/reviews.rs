//! `/reviews`: the history with its filters and stats, and a review's whole record.

use crate::form::{NoFields, PageForm};
use crate::page_error::PageError;
use crate::pager::Pager;
use crate::render::{self, Chrome};
use crate::session::{Viewer, state};
use actix_web::{HttpRequest, HttpResponse, web};
use askama::Template;
use reviewd_api::extract::{date_from, date_until};
use reviewd_domain::PageRequest;
use reviewd_domain::model::Permission;
use reviewd_domain::model::conversation::{Conversation, MrControls};
use reviewd_domain::model::review::ReviewStatus;
use reviewd_domain::model::review_views::{
    AiLogItem, CommentItem, FeedbackItem, FileItem, ReviewDetail, ReviewFilter, ReviewListItem,
    ReviewStats, RoundItem, TaskLogLine,
};
use reviewd_domain::model::{ReviewFileId, ReviewId};
use reviewd_domain::ports::FeedbackScope;
use serde::Deserialize;

crate::render::pages!(ListPage, DetailPage);
pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.route("/reviews", web::get().to(list))
        .route("/reviews/{id}", web::get().to(detail))
        .route(
            "/reviews/{id}/files/{file_id}/retry",
            web::post().to(retry_file),
        );
}

const STATUSES: [&str; 3] = ["pending", "completed", "failed"];

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
struct ListQuery {
    /// From links (a project's page); the filter form searches by name instead.
    project_id: Option<String>,
    project: Option<String>,
    status: Option<String>,
    start_date: Option<String>,
    end_date: Option<String>,
    page: Option<u32>,
}

impl ListQuery {
    /// The filter, and the first problem with the query, if any (shown, not fatal).
    fn filter(&self) -> (ReviewFilter, Option<String>) {
        // The API's date filters: a plain date or a timestamp; a bad one is shown, not fatal.
        let mut problem = None;
        let mut bound = |parsed: Result<_, reviewd_api::error::ApiError>| {
            parsed.unwrap_or_else(|e| {
                problem = Some(e.message);
                None
            })
        };
        let start_date = bound(date_from("From", given(self.start_date.as_deref())));
        let end_date = bound(date_until("To", given(self.end_date.as_deref())));
        let filter = ReviewFilter {
            project_id: self.project_id.as_deref().and_then(|v| v.parse().ok()),
            project_search: self.project.clone().filter(|p| !p.trim().is_empty()),
            status: self.status.as_deref().and_then(|s| s.parse().ok()),
            start_date,
            end_date,
            triggered_by: None,
        };
        (filter, problem)
    }

    fn query_string(&self) -> String {
        crate::pager::filters_query(&[
            ("projectId", self.project_id.as_deref()),
            ("project", self.project.as_deref()),
            ("status", self.status.as_deref()),
            ("startDate", self.start_date.as_deref()),
            ("endDate", self.end_date.as_deref()),
        ])
    }
}

#[derive(Template)]
#[template(path = "reviews.html")]
struct ListPage {
    chrome: Chrome,
    reviews: Vec<ReviewListItem>,
    stats: ReviewStats,
    query: ListQuery,
    problem: Option<String>,
    pager: Pager,
    statuses: [&'static str; 3],
}

async fn list(
    req: HttpRequest,
    viewer: Viewer,
    query: web::Query<ListQuery>,
) -> Result<HttpResponse, PageError> {
    let state = state(&req)?;
    let query = query.into_inner();
    let (filter, problem) = query.filter();
    let (page, stats) = state
        .history
        .list(&filter, PageRequest::new(query.page.unwrap_or(1), 25, 25))
        .await?;
    let pager = Pager::new(&page, "/reviews", &query.query_string());
    render::page(&ListPage {
        chrome: Chrome::new(&viewer, "reviews", "Reviews"),
        reviews: page.items,
        stats,
        query,
        problem,
        pager,
        statuses: STATUSES,
    })
}

/// Comments of one file, in line order.
struct FileComments {
    path: String,
    comments: Vec<CommentItem>,
}

#[derive(Template)]
#[template(path = "review.html")]
struct DetailPage {
    chrome: Chrome,
    review: ReviewDetail,
    rounds: Vec<RoundItem>,
    files: Vec<FileItem>,
    files_done: usize,
    by_file: Vec<FileComments>,
    comment_total: u64,
    ai_logs: Vec<AiLogItem>,
    logs: Vec<TaskLogLine>,
    feedbacks: Vec<FeedbackItem>,
    /// What people said to reviewd in the MR, oldest first with a thread's
    /// replies together, and its controls.
    conversations: Vec<Conversation>,
    controls: MrControls,
    /// How readers judged the review's comments, in words.
    acceptance: String,
    running: bool,
    /// The merge gate as the project's policy judges the review now (a badge's
    /// class and the words); `None` when the project posts none.
    gate: Option<(&'static str, String)>,
}

impl DetailPage {
    /// The first `chars` characters of `text`, with an ellipsis when cut.
    fn cut(text: &str, chars: usize) -> String {
        let mut out: String = text.chars().take(chars).collect();
        if text.chars().count() > chars {
            out.push('…');
        }
        out
    }

    /// Whether any file's review was given analyzers' findings.
    fn has_tool_findings(&self) -> bool {
        self.files
            .iter()
            .any(|f| f.context.as_ref().is_some_and(|c| !c.tools.is_empty()))
    }

    fn progress_percent(&self) -> usize {
        (self.files_done * 100)
            .checked_div(self.files.len())
            .unwrap_or(0)
    }
}

/// Comments shown on the page; a review with more links to the API for the rest.
const COMMENT_LIMIT: u32 = 500;

async fn detail(
    req: HttpRequest,
    viewer: Viewer,
    id: web::Path<ReviewId>,
) -> Result<HttpResponse, PageError> {
    let state = state(&req)?;
    let history = &state.history;
    let review = history.detail(*id).await?;
    let files = history.files(*id).await?;
    let (comments, comment_total) = history.comments(*id, None, None, COMMENT_LIMIT, 0).await?;
    let mut by_file: Vec<FileComments> = Vec::new();
    for c in comments {
        match by_file.iter_mut().find(|g| g.path == c.file_path) {
            Some(group) => group.comments.push(c),
            None => by_file.push(FileComments {
                path: c.file_path.clone(),
                comments: vec![c],
            }),
        }
    }
    let (ai_logs, _) = history.ai_logs(*id, None, None, 200, 0).await?;
    let files_done = files
        .iter()
        .filter(|f| matches!(f.status.as_str(), "completed" | "failed" | "skipped"))
        .count();
    render::page(&DetailPage {
        chrome: Chrome::new(
            &viewer,
            "reviews",
            format!("!{} {}", review.item.mr_iid, review.item.mr_title),
        ),
        running: review.item.status == ReviewStatus::Pending,
        rounds: history.rounds(*id).await?,
        logs: history.task_logs(*id).await?,
        feedbacks: history.feedbacks(*id).await?,
        conversations: by_thread(
            state
                .talk
                .for_mr(review.item.project_id, review.item.mr_iid)
                .await?,
        ),
        controls: state
            .talk
            .controls(review.item.project_id, review.item.mr_iid)
            .await?,
        acceptance: {
            let judged = state
                .feedback
                .acceptance(FeedbackScope::Review(*id))
                .await?;
            crate::format::acceptance(judged.helped, judged.judged)
        },
        gate: state
            .engine
            .gate_view(*id)
            .await?
            .map(|(gate, text)| (gate.as_str(), text)),
        review,
        files,
        files_done,
        by_file,
        comment_total,
        ai_logs,
    })
}

async fn retry_file(
    req: HttpRequest,
    viewer: Viewer,
    path: web::Path<(ReviewId, ReviewFileId)>,
    _form: PageForm<NoFields>,
) -> Result<HttpResponse, PageError> {
    viewer.require(Permission::ReviewCreate)?;
    let (review_id, file_id) = path.into_inner();
    let back = format!("/reviews/{review_id}#files");
    let retried = state(&req)?.engine.retry_file(review_id, file_id).await;
    render::after(retried, &back, |added| {
        format!("File reviewed again: {added} new comment(s).")
    })
}

/// A form field the browser sent: an empty date field means no filter.
fn given(value: Option<&str>) -> Option<&str> {
    value.map(str::trim).filter(|v| !v.is_empty())
}

/// Oldest first, each thread's comments together at the place of its first.
fn by_thread(mut talk: Vec<Conversation>) -> Vec<Conversation> {
    let mut first = std::collections::HashMap::new();
    for c in &talk {
        if let Some(thread) = &c.thread_id {
            first
                .entry(thread.clone())
                .and_modify(|at: &mut chrono::DateTime<chrono::Utc>| *at = (*at).min(c.created_at))
                .or_insert(c.created_at);
        }
    }
    talk.sort_by_key(|c| {
        let at = c
            .thread_id
            .as_ref()
            .and_then(|t| first.get(t).copied())
            .unwrap_or(c.created_at);
        (at, c.thread_id.clone(), c.created_at)
    });
    talk
}

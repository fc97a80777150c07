//! `POST /api/projects/{id}/sarif`: a CI job's analyzers' results (a SARIF 2.1.0
//! log) for one commit, folded into the review of that head.

use crate::envelope::{self, Data};
use crate::error::ApiError;
use crate::extract::{RequirePermission, perm, read_limited};
use crate::state::AppState;
use actix_web::{HttpResponse, post, web};
use chrono::{DateTime, Utc};
use reviewd_domain::ErrorCode;
use reviewd_domain::model::review::FileStatus;
use reviewd_domain::model::{ProjectId, ReviewId};
use reviewd_domain::services::Landing;
use serde::{Deserialize, Serialize};
use std::time::Duration;
use utoipa::{IntoParams, ToSchema};
use uuid::Uuid;

use super::sarif_doc::SarifLogDoc;

/// How long an upload for a round under way waits for it to conclude.
const WAIT_FOR_ROUND: Duration = Duration::from_secs(30 * 60);
const POLL_EVERY: Duration = Duration::from_secs(2);

#[derive(Deserialize, IntoParams)]
#[serde(rename_all = "camelCase")]
#[into_params(parameter_in = Query)]
struct SarifQuery {
    /// The commit the analyzers ran on (the MR's head), its full hex id.
    #[param(pattern = "^[0-9a-fA-F]{40}$|^[0-9a-fA-F]{64}$")]
    commit_sha: String,
}

/// What was kept, and where it lands.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
struct UploadDto {
    id: Uuid,
    project_id: Uuid,
    commit_sha: String,
    /// The runs' tools.
    tools: Vec<String>,
    /// Results kept (each with a file and a line).
    findings: usize,
    /// Results left out: without a file and line, or past 5,000.
    left_out: usize,
    /// `nextRound`: no review is at this commit yet, its round reads the upload;
    /// `roundUnderWay`: the files not yet reviewed read it, the others are reviewed
    /// again with it once the round concludes; `reviewAgain`: the round concluded,
    /// its files with findings on changed lines are reviewed again with them.
    #[schema(value_type = String, pattern = "^(nextRound|roundUnderWay|reviewAgain)$")]
    lands: &'static str,
    /// The review the upload lands in, when there is one.
    review_id: Option<Uuid>,
    created_at: DateTime<Utc>,
}

/// Uploads a SARIF 2.1.0 log of a commit's analysis. The body is the log itself
/// (at most 10 MiB); results whose file the merge request changed, on lines it
/// added, go to the model as evidence and are posted by the project's policy.
#[utoipa::path(
    params(SarifQuery),
    request_body(content = SarifLogDoc, content_type = "application/json"),
    responses((status = 201, body = Data<UploadDto>))
)]
#[post("/{id}/sarif")]
pub(super) async fn upload_sarif(
    state: web::Data<AppState>,
    _user: RequirePermission<perm::AnalysisUpload>,
    id: web::Path<Uuid>,
    query: web::Query<SarifQuery>,
    payload: web::Payload,
) -> Result<HttpResponse, ApiError> {
    let body = read_limited(payload, reviewd_sarif::MAX_SARIF_BYTES, "a SARIF log").await?;
    // Up to 10 MiB of JSON: parsed off the server's event loop.
    let read = web::block(move || reviewd_sarif::read(&body, None))
        .await
        .map_err(|e| ApiError::bad_request(ErrorCode::InvalidBody, e.to_string()))?
        .map_err(|e| ApiError::bad_request(ErrorCode::InvalidBody, e.to_string()))?;
    let project = ProjectId(*id);
    let (upload, landing) = state
        .analysis
        .upload(project, &query.commit_sha, read.tools, read.findings)
        .await?;
    let (lands, review) = match landing {
        Landing::NextRound => ("nextRound", None),
        Landing::RoundUnderWay(r) => ("roundUnderWay", Some(r)),
        Landing::ReviewAgain(r) => ("reviewAgain", Some(r)),
    };
    if let Some(review) = review {
        let state = state.clone().into_inner();
        let commit = upload.commit_sha.clone();
        actix_web::rt::spawn(async move { review_again(&state, project, &commit, review).await });
    }
    Ok(envelope::created(UploadDto {
        id: upload.id,
        project_id: project.into(),
        commit_sha: upload.commit_sha,
        tools: upload.tools,
        findings: upload.finding_count,
        left_out: read.left_out,
        lands,
        review_id: review.map(Into::into),
        created_at: upload.created_at,
    }))
}

/// Once the round at `commit` has concluded, its reviewed files meet the
/// uploaded findings: each file with some on its changed lines is reviewed
/// again (only new comments are posted). Best effort, off the request's path.
async fn review_again(state: &AppState, project: ProjectId, commit: &str, review: ReviewId) {
    let deadline = std::time::Instant::now() + WAIT_FOR_ROUND;
    loop {
        match state.analysis.landing(project, commit).await {
            Ok(Landing::ReviewAgain(r)) if r == review => break,
            Ok(Landing::RoundUnderWay(_)) if std::time::Instant::now() < deadline => {
                actix_web::rt::time::sleep(POLL_EVERY).await;
            }
            other => {
                tracing::info!(review.id = %review, outcome = ?other, "analysis.not_applied");
                return;
            }
        }
    }
    let files = match state.history.files(review).await {
        Ok(files) => files,
        Err(e) => {
            tracing::warn!(review.id = %review, error = %e, "analysis.not_applied");
            return;
        }
    };
    let last_round = files.iter().map(|f| f.round_number).max().unwrap_or(0);
    for file in files
        .iter()
        .filter(|f| f.round_number == last_round && f.status == FileStatus::Completed)
    {
        match state.engine.review_with_uploads(review, file.id).await {
            Ok(added) if added > 0 => {
                tracing::info!(review.id = %review, file = %file.file_path, added, "analysis.applied");
            }
            Ok(_) => {}
            Err(e) => {
                tracing::warn!(review.id = %review, file = %file.file_path, error = %e, "analysis.not_applied");
            }
        }
    }
}

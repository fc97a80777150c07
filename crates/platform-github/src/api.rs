//! The parts of GitHub's JSON that reviewd reads.

use chrono::{DateTime, Utc};
use reviewd_domain::model::diff::{ChangeType, FileDiff};
use reviewd_domain::model::{MergeRequest, PlatformProject, PlatformType, PlatformUser};
use serde::Deserialize;

#[derive(Debug, Deserialize)]
pub struct GhUser {
    pub id: i64,
    pub login: String,
    pub name: Option<String>,
    pub avatar_url: Option<String>,
    pub html_url: Option<String>,
}

impl From<GhUser> for PlatformUser {
    fn from(u: GhUser) -> Self {
        PlatformUser {
            id: u.id.to_string(),
            name: u.name.unwrap_or_else(|| u.login.clone()),
            username: u.login,
            avatar_url: u.avatar_url.unwrap_or_default(),
            state: "active".to_owned(),
            web_url: u.html_url.unwrap_or_default(),
        }
    }
}

#[derive(Debug, Deserialize)]
pub struct GhRepo {
    pub id: i64,
    pub name: String,
    pub full_name: String,
    pub html_url: String,
    pub default_branch: Option<String>,
    pub visibility: Option<String>,
    #[serde(default)]
    pub private: bool,
}

impl From<GhRepo> for PlatformProject {
    fn from(r: GhRepo) -> Self {
        let visibility = r
            .visibility
            .unwrap_or_else(|| if r.private { "private" } else { "public" }.to_owned());
        PlatformProject {
            id: r.id.to_string(),
            name: r.name,
            full_path: r.full_name,
            web_url: r.html_url,
            default_branch: r.default_branch,
            visibility: Some(visibility),
            platform_type: PlatformType::Github,
        }
    }
}

#[derive(Debug, Deserialize)]
pub struct GhRef {
    #[serde(rename = "ref")]
    pub branch: String,
    pub sha: String,
}

#[derive(Debug, Deserialize)]
pub struct GhLogin {
    pub id: i64,
    pub login: String,
}

#[derive(Debug, Deserialize)]
pub struct GhPull {
    pub number: i64,
    pub title: String,
    pub body: Option<String>,
    pub state: String,
    pub merged_at: Option<DateTime<Utc>>,
    pub html_url: String,
    pub head: GhRef,
    pub base: GhRef,
    pub user: Option<GhLogin>,
    #[serde(default)]
    pub draft: bool,
    pub created_at: Option<DateTime<Utc>>,
    pub updated_at: Option<DateTime<Utc>>,
}

impl From<GhPull> for MergeRequest {
    fn from(pr: GhPull) -> Self {
        // GitLab's vocabulary, so both platforms read alike: open -> opened, closed
        // with a merge -> merged.
        let state = match (pr.state.as_str(), pr.merged_at.is_some()) {
            ("open", _) => "opened",
            (_, true) => "merged",
            _ => "closed",
        };
        MergeRequest {
            iid: pr.number,
            title: pr.title,
            description: pr.body,
            state: state.to_owned(),
            web_url: pr.html_url,
            source_branch: pr.head.branch,
            target_branch: pr.base.branch,
            author_id: pr.user.as_ref().map(|u| u.id.to_string()),
            author_username: pr.user.map(|u| u.login),
            head_sha: Some(pr.head.sha),
            start_sha: Some(pr.base.sha.clone()),
            base_sha: Some(pr.base.sha),
            draft: pr.draft,
            created_at: pr.created_at,
            updated_at: pr.updated_at,
        }
    }
}

/// One file of `/pulls/{n}/files` or `/compare`.
#[derive(Debug, Deserialize)]
pub struct GhFile {
    pub filename: String,
    pub previous_filename: Option<String>,
    pub status: String,
    /// Absent for binary files and very large diffs.
    pub patch: Option<String>,
}

impl From<GhFile> for FileDiff {
    fn from(f: GhFile) -> Self {
        let change_type = match f.status.as_str() {
            "added" | "copied" => ChangeType::New,
            "removed" => ChangeType::Deleted,
            "renamed" => ChangeType::Renamed,
            _ => ChangeType::Modified,
        };
        FileDiff {
            new_path: f.filename,
            old_path: f.previous_filename,
            change_type,
            diff: f.patch,
        }
    }
}

#[derive(Debug, Deserialize)]
pub struct GhCompare {
    #[serde(default)]
    pub files: Vec<GhFile>,
}

#[derive(Debug, Deserialize)]
pub struct GhHookConfig {
    pub url: Option<String>,
}

#[derive(Debug, Deserialize)]
pub struct GhHook {
    pub id: i64,
    pub config: GhHookConfig,
}

/// An issue comment as its `POST` answers it, or a review or issue comment as the
/// lists give it.
#[derive(Debug, Deserialize)]
pub struct GhComment {
    pub id: i64,
    #[serde(default)]
    pub body: Option<String>,
    #[serde(default)]
    pub created_at: Option<DateTime<Utc>>,
}

/// `GET /repos/{owner}/{repo}/contents/{path}` for a file: its body in base64
/// (`encoding: "none"` and no content past 1 MB).
#[derive(Debug, Deserialize)]
pub struct GhContent {
    #[serde(rename = "type", default)]
    pub kind: String,
    #[serde(default)]
    pub encoding: Option<String>,
    #[serde(default)]
    pub content: Option<String>,
}

impl GhContent {
    /// The file's bytes; `None` for a directory or a submodule at that path.
    ///
    /// # Errors
    /// `InvalidResponse` for a body that is not base64, `Rejected` for a file
    /// too large for the contents API to carry.
    pub fn decoded(self) -> Result<Option<Vec<u8>>, reviewd_domain::ports::PlatformError> {
        use base64::Engine as _;
        use reviewd_domain::ports::PlatformError;
        if self.kind != "file" {
            return Ok(None);
        }
        match (self.encoding.as_deref(), self.content) {
            (Some("base64"), Some(content)) => {
                // GitHub wraps the base64 text at 60 columns.
                let compact: String = content.split_whitespace().collect();
                base64::engine::general_purpose::STANDARD
                    .decode(compact)
                    .map(Some)
                    .map_err(|e| PlatformError::InvalidResponse(format!("file content: {e}")))
            }
            _ => Err(PlatformError::Rejected(
                "the file is too large to read through the contents API".into(),
            )),
        }
    }
}

/// Who wrote a comment or gave a reaction (`null` for a deleted account).
#[derive(Debug, Deserialize)]
pub struct GhAuthor {
    pub login: String,
}

/// The reactions summary GitHub puts on every comment.
#[derive(Debug, Deserialize)]
pub struct GhReactionSummary {
    #[serde(default)]
    pub total_count: u64,
}

/// A review comment as `/pulls/{n}/comments` lists it: a thread's first comment,
/// or a reply naming that first comment in `in_reply_to_id`.
#[derive(Debug, Deserialize)]
pub struct GhReviewComment {
    pub id: i64,
    #[serde(default)]
    pub body: Option<String>,
    #[serde(default)]
    pub in_reply_to_id: Option<i64>,
    #[serde(default)]
    pub user: Option<GhAuthor>,
    #[serde(default)]
    pub reactions: Option<GhReactionSummary>,
}

/// One reaction of `/pulls/comments/{id}/reactions`: `+1`, `-1`, `laugh`,
/// `confused`, `heart`, `hooray`, `rocket` or `eyes`.
#[derive(Debug, Deserialize)]
pub struct GhReaction {
    pub content: String,
    #[serde(default)]
    pub user: Option<GhAuthor>,
}

/// `GET /app`: the App the JWT signs for.
#[derive(Debug, Deserialize)]
pub struct GhApp {
    pub id: i64,
    pub slug: String,
    #[serde(default)]
    pub name: Option<String>,
}

/// An installation of the App, as `GET /app/installations` and
/// `GET /repos/{owner}/{repo}/installation` give it.
#[derive(Debug, Deserialize)]
pub struct GhInstallation {
    pub id: u64,
    /// Set while the organisation has the installation suspended: no token is
    /// minted for it then (403).
    #[serde(default)]
    pub suspended_at: Option<String>,
}

/// `POST /app/installations/{id}/access_tokens`: the token and when it expires
/// (one hour after the mint on github.com).
#[derive(Debug, Deserialize)]
pub struct GhInstallationToken {
    pub token: String,
    pub expires_at: DateTime<Utc>,
}

/// `GET /repos/{owner}/{repo}/git/trees/{sha}?recursive=1`.
#[derive(Debug, Deserialize)]
pub struct GhTree {
    pub tree: Vec<GhTreeEntry>,
    #[serde(default)]
    pub truncated: bool,
}

#[derive(Debug, Deserialize)]
pub struct GhTreeEntry {
    pub path: String,
    #[serde(default)]
    pub mode: String,
    #[serde(rename = "type")]
    pub kind: String,
    pub sha: String,
    #[serde(default)]
    pub size: Option<u64>,
}

/// `GET /repos/{owner}/{repo}/git/blobs/{sha}`: the bytes in base64.
#[derive(Debug, Deserialize)]
pub struct GhBlob {
    pub content: String,
    #[serde(default)]
    pub encoding: String,
}

impl GhBlob {
    /// # Errors
    /// `InvalidResponse` for an encoding other than base64 or UTF-8 text.
    pub fn decoded(self) -> Result<Vec<u8>, reviewd_domain::ports::PlatformError> {
        use base64::Engine as _;
        match self.encoding.as_str() {
            "base64" => {
                let compact: String = self.content.split_whitespace().collect();
                base64::engine::general_purpose::STANDARD
                    .decode(compact)
                    .map_err(|e| {
                        reviewd_domain::ports::PlatformError::InvalidResponse(format!("blob: {e}"))
                    })
            }
            "utf-8" | "utf8" => Ok(self.content.into_bytes()),
            other => Err(reviewd_domain::ports::PlatformError::InvalidResponse(
                format!("blob in an unknown encoding `{other}`"),
            )),
        }
    }
}

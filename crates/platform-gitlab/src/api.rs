//! The parts of GitLab's JSON that reviewd reads.

use chrono::{DateTime, Utc};
use reviewd_domain::model::diff::{
    ChangeType, CommentThread, ExistingComment, FileDiff, Resolution, ThreadReply,
};
use reviewd_domain::model::{MergeRequest, PlatformProject, PlatformType, PlatformUser};
use reviewd_domain::review::markers::comment_fingerprint;
use serde::Deserialize;

#[derive(Debug, Deserialize)]
pub struct GlUser {
    pub id: i64,
    pub username: String,
    pub name: Option<String>,
    pub state: Option<String>,
    pub avatar_url: Option<String>,
    pub web_url: Option<String>,
}

impl From<GlUser> for PlatformUser {
    fn from(u: GlUser) -> Self {
        PlatformUser {
            id: u.id.to_string(),
            name: u.name.unwrap_or_else(|| u.username.clone()),
            username: u.username,
            avatar_url: u.avatar_url.unwrap_or_default(),
            state: u.state.unwrap_or_else(|| "active".to_owned()),
            web_url: u.web_url.unwrap_or_default(),
        }
    }
}

/// `GET /personal_access_tokens/self`.
#[derive(Debug, Deserialize)]
pub struct GlTokenSelf {
    pub scopes: Vec<String>,
}

/// `GET /oauth/token/info` (OAuth tokens).
#[derive(Debug, Deserialize)]
pub struct GlTokenInfo {
    #[serde(default)]
    pub scope: Vec<String>,
}

#[derive(Debug, Deserialize)]
pub struct GlProject {
    pub id: i64,
    pub name: String,
    pub path_with_namespace: String,
    pub web_url: String,
    pub default_branch: Option<String>,
    pub visibility: Option<String>,
}

impl From<GlProject> for PlatformProject {
    fn from(p: GlProject) -> Self {
        PlatformProject {
            id: p.id.to_string(),
            name: p.name,
            full_path: p.path_with_namespace,
            web_url: p.web_url,
            default_branch: p.default_branch,
            visibility: p.visibility,
            platform_type: PlatformType::Gitlab,
        }
    }
}

#[derive(Debug, Deserialize)]
pub struct GlDiffRefs {
    pub base_sha: Option<String>,
    pub head_sha: Option<String>,
    pub start_sha: Option<String>,
}

#[derive(Debug, Deserialize)]
pub struct GlAuthor {
    pub id: i64,
    pub username: String,
}

#[derive(Debug, Deserialize)]
pub struct GlMergeRequest {
    pub iid: i64,
    pub title: String,
    pub description: Option<String>,
    pub state: String,
    pub web_url: String,
    pub source_branch: String,
    pub target_branch: String,
    pub author: Option<GlAuthor>,
    pub sha: Option<String>,
    pub diff_refs: Option<GlDiffRefs>,
    #[serde(default)]
    pub draft: bool,
    pub created_at: Option<DateTime<Utc>>,
    pub updated_at: Option<DateTime<Utc>>,
}

impl From<GlMergeRequest> for MergeRequest {
    fn from(mr: GlMergeRequest) -> Self {
        let refs = mr.diff_refs.unwrap_or(GlDiffRefs {
            base_sha: None,
            head_sha: None,
            start_sha: None,
        });
        MergeRequest {
            iid: mr.iid,
            title: mr.title,
            description: mr.description,
            state: mr.state,
            web_url: mr.web_url,
            source_branch: mr.source_branch,
            target_branch: mr.target_branch,
            author_id: mr.author.as_ref().map(|a| a.id.to_string()),
            author_username: mr.author.map(|a| a.username),
            head_sha: refs.head_sha.or(mr.sha),
            base_sha: refs.base_sha,
            start_sha: refs.start_sha,
            draft: mr.draft,
            created_at: mr.created_at,
            updated_at: mr.updated_at,
        }
    }
}

/// One file of `/merge_requests/:iid/diffs`, `/changes` or `/repository/compare`.
#[derive(Debug, Deserialize)]
pub struct GlDiff {
    pub old_path: String,
    pub new_path: String,
    #[serde(default)]
    pub diff: String,
    #[serde(default)]
    pub new_file: bool,
    #[serde(default)]
    pub renamed_file: bool,
    #[serde(default)]
    pub deleted_file: bool,
    /// Set when GitLab left the patch out (file too large).
    #[serde(default)]
    pub too_large: Option<bool>,
}

impl From<GlDiff> for FileDiff {
    fn from(d: GlDiff) -> Self {
        let change_type = if d.new_file {
            ChangeType::New
        } else if d.deleted_file {
            ChangeType::Deleted
        } else if d.renamed_file {
            ChangeType::Renamed
        } else {
            ChangeType::Modified
        };
        let patch_missing = d.diff.is_empty() || d.too_large == Some(true);
        FileDiff {
            old_path: (d.old_path != d.new_path).then_some(d.old_path),
            new_path: d.new_path,
            change_type,
            diff: (!patch_missing).then_some(d.diff),
        }
    }
}

#[derive(Debug, Deserialize)]
pub struct GlChanges {
    pub changes: Vec<GlDiff>,
}

#[derive(Debug, Deserialize)]
pub struct GlCompare {
    #[serde(default)]
    pub diffs: Vec<GlDiff>,
}

#[derive(Debug, Deserialize)]
pub struct GlHook {
    pub id: i64,
    pub url: String,
}

/// A discussion as `POST /discussions` answers it and `GET /discussions` lists it.
#[derive(Debug, Deserialize)]
pub struct GlDiscussion {
    pub id: String,
    /// A general comment: one note outside any thread.
    #[serde(default)]
    pub individual_note: bool,
    #[serde(default)]
    pub notes: Vec<GlNote>,
}

impl GlDiscussion {
    /// Its notes as comments, with the note id (oldest first by it); GitLab's own
    /// system notes ("added 1 commit") left out, as nobody wrote them.
    pub fn into_comments(self) -> impl Iterator<Item = (i64, ExistingComment)> {
        let thread_id = (!self.individual_note).then_some(self.id);
        self.notes
            .into_iter()
            .filter(|note| !note.system)
            .map(move |note| {
                let comment = ExistingComment {
                    id: note.id.to_string(),
                    thread_id: thread_id.clone(),
                    body: note.body,
                };
                (note.id, comment)
            })
    }

    /// The thread as feedback reads it, when its first note carries reviewd's
    /// marker; whose that note is, for the caller to check that reviewd wrote it
    /// (anyone can copy a marker). Reactions are left for the caller to fill in.
    pub fn into_review_thread(self) -> Option<MarkedThread> {
        let notes: Vec<GlNote> = self.notes.into_iter().filter(|note| !note.system).collect();
        comment_fingerprint(&notes.first()?.body)?;
        // GitLab resolves a thread by resolving each of its resolvable notes.
        let resolvable: Vec<&GlNote> = notes.iter().filter(|note| note.resolvable).collect();
        let resolved = (!resolvable.is_empty() && resolvable.iter().all(|note| note.resolved))
            .then(|| Resolution {
                username: resolvable
                    .iter()
                    .find_map(|note| note.resolved_by.as_ref())
                    .map(|user| user.username.clone()),
            });
        let mut notes = notes.into_iter();
        let first = notes.next()?;
        let author = first.author.map(|a| a.username);
        let replies = notes
            .map(|note| ThreadReply {
                id: note.id.to_string(),
                body: note.body,
                username: note.author.map(|a| a.username).unwrap_or_default(),
            })
            .collect();
        let thread = CommentThread {
            body: first.body,
            reactions: Vec::new(),
            replies,
            resolved,
        };
        Some(MarkedThread {
            note_id: first.id,
            author,
            thread,
        })
    }
}

/// A discussion whose first note carries reviewd's marker.
#[derive(Debug)]
pub struct MarkedThread {
    /// The first note's id, to read its award emoji by.
    pub note_id: i64,
    /// Who wrote the first note (`None` when GitLab names nobody).
    pub author: Option<String>,
    pub thread: CommentThread,
}

/// A project member as `GET /members/all/:user_id` answers, inherited
/// memberships included: only the access level is read.
#[derive(Debug, Deserialize)]
pub struct GlMember {
    pub access_level: u32,
}

#[derive(Debug, Deserialize)]
pub struct GlNote {
    pub id: i64,
    #[serde(default)]
    pub body: String,
    #[serde(default)]
    pub system: bool,
    #[serde(default)]
    pub author: Option<GlUserRef>,
    /// Whether the note can be resolved: the notes of a diff or discussion thread.
    #[serde(default)]
    pub resolvable: bool,
    #[serde(default)]
    pub resolved: bool,
    /// Who resolved the thread; null while it is open (and on older GitLab).
    #[serde(default)]
    pub resolved_by: Option<GlUserRef>,
}

/// A user as notes and award emoji name them (the other fields are not read).
#[derive(Debug, Deserialize)]
pub struct GlUserRef {
    pub username: String,
}

/// `GET /merge_requests/:iid/notes/:note_id/award_emoji`.
#[derive(Debug, Deserialize)]
pub struct GlAwardEmoji {
    pub name: String,
    pub user: GlUserRef,
}

/// `POST /oauth/token`.
#[derive(Debug, Deserialize)]
pub struct GlOAuthToken {
    pub access_token: String,
    pub refresh_token: Option<String>,
    pub expires_in: Option<i64>,
    pub created_at: Option<i64>,
    pub scope: Option<String>,
}

/// An entry of `GET /projects/:id/repository/tree`.
#[derive(Debug, Deserialize)]
pub struct GlTreeEntry {
    pub id: String,
    #[serde(rename = "type")]
    pub kind: String,
    pub path: String,
    #[serde(default)]
    pub mode: String,
}

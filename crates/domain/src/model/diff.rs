//! Diffs of merge requests, and comments placed on them.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ChangeType {
    New,
    Modified,
    Deleted,
    Renamed,
}

impl ChangeType {
    pub const ALL: [Self; 4] = [
        ChangeType::New,
        ChangeType::Modified,
        ChangeType::Deleted,
        ChangeType::Renamed,
    ];

    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            ChangeType::New => "new",
            ChangeType::Modified => "modified",
            ChangeType::Deleted => "deleted",
            ChangeType::Renamed => "renamed",
        }
    }
}

super::named_values::named_values!(ChangeType, "change type");

/// One changed file: its unified-diff hunks (`None` for binary or oversized files,
/// which platforms send without a patch).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileDiff {
    pub new_path: String,
    pub old_path: Option<String>,
    pub change_type: ChangeType,
    pub diff: Option<String>,
}

/// The commits a merge request's diff is taken between (GitLab's `diff_refs`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DiffRefs {
    pub base_sha: String,
    pub start_sha: String,
    pub head_sha: String,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MergeRequestDiff {
    pub refs: DiffRefs,
    pub files: Vec<FileDiff>,
}

/// Replacement code for new-side lines `start_line..=end_line` of a file, which
/// the platforms show as a suggestion the author applies in one click. `code` is
/// what the lines should read (no trailing line break; empty deletes them). The
/// rules that check and fit one are in `review::suggestion`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Suggestion {
    pub start_line: u32,
    pub end_line: u32,
    pub code: String,
}

/// A comment on a line of the new version of a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InlineComment {
    pub file_path: String,
    pub old_path: Option<String>,
    pub line: u32,
    pub body: String,
    /// Replacement code for new-side lines around `line` (`line` among them, all in
    /// one hunk), which the adapter appends to `body` in its platform's suggestion
    /// syntax and anchors on (hostB: the comment spans the suggestion's lines).
    pub suggestion: Option<Suggestion>,
}

/// A comment already on a merge request, line comment or general, as the platform
/// lists it now (edits included).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExistingComment {
    /// What [`crate::ports::HostingPlatform::edit_comment`] takes: the hostA note
    /// id, the hostB comment id.
    pub id: String,
    /// What [`crate::ports::HostingPlatform::post_inline_comments`] returns for a
    /// line comment: its hostA discussion id; `None` on hostB and for general
    /// comments.
    pub thread_id: Option<String>,
    pub body: String,
}

/// A thread that one of reviewd's line comments started, with what its readers
/// did to it: how the feedback on comments is read from a platform.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CommentThread {
    /// The first comment's text; reviewd's carries its fingerprint marker.
    pub body: String,
    /// Award emoji (hostA) or reactions (hostB) on the first comment.
    pub reactions: Vec<ThreadReaction>,
    /// The later comments of the thread, oldest first (system notes left out).
    pub replies: Vec<ThreadReply>,
    /// Set when the thread is resolved.
    pub resolved: Option<Resolution>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ThreadReaction {
    /// As the platform names it: `thumbsup` (hostA), `+1` (hostB)...
    pub name: String,
    pub username: String,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ThreadReply {
    /// The platform's id of the reply (hostA note id, hostB comment id).
    pub id: String,
    pub body: String,
    pub username: String,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resolution {
    /// Who resolved it, when the platform says.
    pub username: Option<String>,
}

//! GitLab's webhook payloads as documented ("Webhook events": merge request, comment and
//! emoji events), with only the fields reviewd reads. One struct serves the three kinds:
//! `object_attributes` holds each kind's attributes, all optional, so one pass over the
//! body reads any of them and a field of the wrong type is named by its path.

use reviewd_domain::model::webhook_payload::{WireId, WireIid};
use serde::Deserialize;
use serde::de::IgnoredAny;
use std::collections::BTreeMap;

#[derive(Debug, Deserialize)]
pub(super) struct Hook {
    pub object_kind: Option<String>,
    /// `award` or `revoke` on emoji events since GitLab 16.2.
    pub event_type: Option<String>,
    #[serde(default)]
    pub object_attributes: Attributes,
    pub project: Option<Project>,
    /// The MR a comment or an emoji is on.
    pub merge_request: Option<MergeRequest>,
    /// The comment an emoji is on.
    pub note: Option<Note>,
    pub user: Option<User>,
    /// What an MR update changed, by field name.
    pub changes: Option<BTreeMap<String, IgnoredAny>>,
}

#[derive(Debug, Default, Deserialize)]
pub(super) struct Attributes {
    /// MR: `open`, `reopen`, `update`, `close`...; note: `create` or `update`; emoji
    /// (before 16.2): `award` or `revoke`.
    pub action: Option<String>,
    // A merge request's.
    pub iid: Option<WireIid>,
    /// Set on an update that pushed commits.
    pub oldrev: Option<String>,
    pub last_commit: Option<Commit>,
    pub author_id: Option<WireId>,
    // A note's.
    /// The note's id (on an MR event, the MR's global id, unread).
    pub id: Option<WireId>,
    /// The note's thread (every note has one; a lone comment's is its own).
    pub discussion_id: Option<String>,
    pub noteable_type: Option<String>,
    pub note: Option<String>,
    /// `DiffNote` or `DiscussionNote` for a note in a thread, null otherwise.
    #[serde(rename = "type")]
    pub note_type: Option<String>,
    // An emoji's.
    pub awardable_type: Option<String>,
    pub name: Option<String>,
}

#[derive(Debug, Deserialize)]
pub(super) struct Project {
    pub id: Option<WireId>,
}

#[derive(Debug, Deserialize)]
pub(super) struct MergeRequest {
    pub iid: Option<WireIid>,
    pub last_commit: Option<Commit>,
}

#[derive(Debug, Deserialize)]
pub(super) struct Commit {
    pub id: Option<String>,
}

#[derive(Debug, Deserialize)]
pub(super) struct Note {
    pub note: Option<String>,
    pub noteable_type: Option<String>,
}

#[derive(Debug, Deserialize)]
pub(super) struct User {
    pub id: Option<WireId>,
    pub username: Option<String>,
}

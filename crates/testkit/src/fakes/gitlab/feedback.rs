//! What readers do to the comments on the fake GitLab: award emoji on notes,
//! replies in discussions, resolved discussions. Served in GitLab's shapes for the
//! token's owner, and driven by tests for other users through the `*_as` methods.

use super::FakeGitlab;
use super::hosted::{
    OWNER_USERNAME, discussion_root, gitlab_discussion, gitlab_note, gitlab_user_named, resolvable,
};
use crate::fakes::hosted::{Hosted, HostedComment, HostedFake, Shared, query_value};
use chrono::{Duration, TimeZone, Utc};
use reviewd_domain::model::diff::InlineComment;
use serde_json::{Value, json};
use wiremock::matchers::path_regex;
use wiremock::{Request, ResponseTemplate};

impl FakeGitlab {
    /// The line comments that opened a positioned discussion on a merge request
    /// (reviewd's, and those [`FakeGitlab::start_discussion_as`] opened), oldest
    /// first: note id and body, to find one by the fingerprint in its body.
    #[must_use]
    pub fn line_comment_ids(&self, project_id: &str, iid: i64) -> Vec<(u64, String)> {
        self.lock()
            .comments_on(project_id, iid)
            .into_iter()
            .filter(|c| c.anchor.is_some() && c.in_reply_to.is_none())
            .map(|c| (c.id, c.body))
            .collect()
    }

    /// `username` opens a discussion of their own on merge request `iid`: a line
    /// comment on `path` at `line` (new side), placed on the same diff as the
    /// merge request's other line comments. Returns its note id. What the server
    /// accepted lists it too.
    pub fn start_discussion_as(
        &self,
        project_id: &str,
        iid: i64,
        path: &str,
        line: u32,
        body: &str,
        username: &str,
    ) -> u64 {
        let comment = InlineComment {
            file_path: path.to_owned(),
            old_path: None,
            line,
            body: body.to_owned(),
            suggestion: None,
        };
        let mut hosted = self.lock();
        let placed = hosted
            .comments_on(project_id, iid)
            .into_iter()
            .find_map(|c| c.anchor.map(|a| a["position"].clone()))
            .unwrap_or_default();
        let sha = |key: &str| placed.get(key).cloned().unwrap_or(Value::Null);
        let position = json!({
            "base_sha": sha("base_sha"), "start_sha": sha("start_sha"), "head_sha": sha("head_sha"),
            "old_path": path, "new_path": path, "position_type": "text", "old_line": null, "new_line": line,
        });
        let head_sha = position["head_sha"].as_str().unwrap_or_default().to_owned();
        // The anchor's fields are merged into the note as listed: the author rides
        // along there, as the shared store keeps line comments as reviewd's.
        let anchor = json!({
            "position": position,
            "author": gitlab_user_named(&hosted, Some(username)),
        });
        hosted
            .line_comment(project_id, iid, comment, &head_sha, anchor)
            .id
    }

    /// `username` awards emoji `name` (`thumbsup`, `thumbsdown`...) to note
    /// `note_id`: the award's id (the same one again for a repeated award), `None`
    /// for an unknown note.
    pub fn react_as(
        &self,
        project_id: &str,
        note_id: u64,
        name: &str,
        username: &str,
    ) -> Option<u64> {
        self.lock().react(project_id, note_id, name, username)
    }

    /// Takes award `award_id` back from note `note_id`; whether it was there.
    pub fn unreact(&self, project_id: &str, note_id: u64, award_id: u64) -> bool {
        self.lock().unreact(project_id, note_id, award_id)
    }

    /// `username` replies in the discussion of note `note_id`: the reply's note id,
    /// `None` for an unknown note.
    pub fn reply_as(
        &self,
        project_id: &str,
        note_id: u64,
        body: &str,
        username: &str,
    ) -> Option<u64> {
        self.lock()
            .reply(project_id, note_id, body, username)
            .map(|reply| reply.id)
    }

    /// Resolves (by `Some(username)`) or reopens (`None`) the discussion of note
    /// `note_id`; whether the note exists.
    pub fn resolve_as(&self, project_id: &str, note_id: u64, by: Option<&str>) -> bool {
        self.lock().resolve(project_id, note_id, by)
    }

    /// The award emoji, reply and resolve routes of one merge request, acting as
    /// the token's owner:
    /// - `GET|POST /notes/:note_id/award_emoji`, `DELETE …/award_emoji/:award_id`
    /// - `POST /discussions/:discussion_id/notes` (a reply)
    /// - `PUT /discussions/:discussion_id?resolved=true|false`
    pub(super) async fn serve_feedback(&self, project_id: u64, iid: i64) {
        let base = format!("/api/v4/projects/{project_id}/merge_requests/{iid}");
        let project = project_id.to_string();
        let awards = format!("^{base}/notes/\\d+/award_emoji$");
        let (hosted, key) = (self.hosted.clone(), project.clone());
        self.serve("GET", path_regex(awards.clone()), move |r: &Request| {
            list_awards(&hosted, &key, iid, r)
        })
        .await;
        let (hosted, key) = (self.hosted.clone(), project.clone());
        self.serve("POST", path_regex(awards), move |r: &Request| {
            award(&hosted, &key, iid, r)
        })
        .await;
        let (hosted, key) = (self.hosted.clone(), project.clone());
        let one_award = path_regex(format!("^{base}/notes/\\d+/award_emoji/\\d+$"));
        self.serve("DELETE", one_award, move |r: &Request| {
            revoke(&hosted, &key, iid, r)
        })
        .await;
        let (hosted, key) = (self.hosted.clone(), project.clone());
        let replies = path_regex(format!("^{base}/discussions/[0-9a-f]+/notes$"));
        self.serve("POST", replies, move |r: &Request| {
            reply(&hosted, &key, iid, r)
        })
        .await;
        let (hosted, key) = (self.hosted.clone(), project);
        let discussion = path_regex(format!("^{base}/discussions/[0-9a-f]+$"));
        self.serve("PUT", discussion, move |r: &Request| {
            resolve(&hosted, &key, iid, r)
        })
        .await;
    }
}

/// The path segment after `key` (`notes` → the note id).
fn segment_after<'a>(request: &'a Request, key: &str) -> Option<&'a str> {
    let mut segments = request.url.path().split('/');
    segments.find(|s| *s == key)?;
    segments.next()
}

/// A parameter as GitLab reads it: from a JSON or form body, or the query.
fn param(request: &Request, key: &str) -> Option<String> {
    match &FakeGitlab::params(request)[key] {
        Value::String(s) => return Some(s.clone()),
        Value::Bool(b) => return Some(b.to_string()),
        _ => {}
    }
    url::form_urlencoded::parse(&request.body)
        .find(|(k, _)| k == key)
        .map(|(_, v)| v.into_owned())
        .or_else(|| query_value(request, key))
}

fn missing(key: &str) -> ResponseTemplate {
    ResponseTemplate::new(400).set_body_json(json!({ "error": format!("{key} is missing") }))
}

/// The note of this merge request the route names (after `notes`).
fn note_of<'a>(
    hosted: &'a Hosted,
    project: &str,
    iid: i64,
    r: &Request,
) -> Option<&'a HostedComment> {
    let id = segment_after(r, "notes")?.parse().ok()?;
    hosted.find(project, id).filter(|c| c.number == iid)
}

/// The note that opened the discussion of this merge request the route names.
fn discussion_of<'a>(
    hosted: &'a Hosted,
    project: &str,
    iid: i64,
    r: &Request,
) -> Option<&'a HostedComment> {
    let root = discussion_root(segment_after(r, "discussions")?)?;
    hosted
        .find(project, root)
        .filter(|c| c.number == iid && c.in_reply_to.is_none())
}

/// An award as GitLab's award emoji API shows it.
fn gitlab_award(hosted: &Hosted, note: &HostedComment, award: &(u64, String, String)) -> Value {
    let (id, name, user) = award;
    let epoch = Utc.with_ymd_and_hms(2026, 11, 22, 0, 0, 0).single();
    let at = epoch.unwrap_or_default() + Duration::seconds(i64::try_from(*id).unwrap_or_default());
    json!({
        "id": id, "name": name, "user": gitlab_user_named(hosted, Some(user)),
        "created_at": at, "updated_at": at,
        "awardable_id": note.id, "awardable_type": "Note", "url": null,
    })
}

fn list_awards(hosted: &Shared, project: &str, iid: i64, r: &Request) -> ResponseTemplate {
    let hosted = hosted.lock().unwrap();
    let Some(note) = note_of(&hosted, project, iid, r) else {
        return FakeGitlab::not_found();
    };
    let awards = note
        .reactions
        .iter()
        .map(|award| gitlab_award(&hosted, note, award))
        .collect();
    FakeGitlab::page_of(awards, r)
}

/// `POST …/award_emoji` (`name`): an award by the token's owner; GitLab refuses
/// the same emoji twice from one user.
fn award(hosted: &Shared, project: &str, iid: i64, r: &Request) -> ResponseTemplate {
    let Some(name) = param(r, "name").filter(|n| !n.is_empty()) else {
        return missing("name");
    };
    let mut hosted = hosted.lock().unwrap();
    let Some(note) = note_of(&hosted, project, iid, r) else {
        return FakeGitlab::not_found();
    };
    let note_id = note.id;
    if note
        .reactions
        .iter()
        .any(|(_, n, u)| *n == name && u == OWNER_USERNAME)
    {
        return ResponseTemplate::new(404).set_body_json(
            json!({ "message": "404 Award Emoji Name has already been taken Not Found" }),
        );
    }
    let Some(id) = hosted.react(project, note_id, &name, OWNER_USERNAME) else {
        return FakeGitlab::not_found();
    };
    let Some(note) = hosted.find(project, note_id) else {
        return FakeGitlab::not_found();
    };
    let award = (id, name, OWNER_USERNAME.to_owned());
    ResponseTemplate::new(201).set_body_json(gitlab_award(&hosted, note, &award))
}

/// `DELETE …/award_emoji/:award_id`: only the award's user may take it back.
fn revoke(hosted: &Shared, project: &str, iid: i64, r: &Request) -> ResponseTemplate {
    let mut hosted = hosted.lock().unwrap();
    let Some(note) = note_of(&hosted, project, iid, r) else {
        return FakeGitlab::not_found();
    };
    let award_id = segment_after(r, "award_emoji").and_then(|id| id.parse::<u64>().ok());
    let Some((id, _, user)) = note
        .reactions
        .iter()
        .find(|(id, _, _)| Some(*id) == award_id)
    else {
        return FakeGitlab::not_found();
    };
    if user != OWNER_USERNAME {
        return ResponseTemplate::new(403).set_body_json(json!({ "message": "403 Forbidden" }));
    }
    let (note_id, id) = (note.id, *id);
    hosted.unreact(project, note_id, id);
    ResponseTemplate::new(204)
}

/// `POST /discussions/:id/notes` (`body`): the token owner's reply, answered as
/// the note it made.
fn reply(hosted: &Shared, project: &str, iid: i64, r: &Request) -> ResponseTemplate {
    let Some(body) = param(r, "body").filter(|b| !b.is_empty()) else {
        return missing("body");
    };
    let mut hosted = hosted.lock().unwrap();
    let Some(root) = discussion_of(&hosted, project, iid, r).map(|c| c.id) else {
        return FakeGitlab::not_found();
    };
    match hosted.reply(project, root, &body, OWNER_USERNAME) {
        Some(reply) => ResponseTemplate::new(201).set_body_json(gitlab_note(&hosted, &reply)),
        None => FakeGitlab::not_found(),
    }
}

/// `PUT /discussions/:id?resolved=true|false`: resolved by the token's owner or
/// reopened, answered as the discussion; a general comment alone has nothing to
/// resolve.
fn resolve(hosted: &Shared, project: &str, iid: i64, r: &Request) -> ResponseTemplate {
    let resolved = match param(r, "resolved").as_deref() {
        Some("true") => true,
        Some("false") => false,
        Some(_) => {
            return ResponseTemplate::new(400)
                .set_body_json(json!({ "error": "resolved is invalid" }));
        }
        None => return missing("resolved"),
    };
    let mut hosted = hosted.lock().unwrap();
    let Some(root) = discussion_of(&hosted, project, iid, r).cloned() else {
        return FakeGitlab::not_found();
    };
    if !resolvable(&hosted, &root) {
        return ResponseTemplate::new(400)
            .set_body_json(json!({ "message": "400 Bad request - Discussion is not resolvable" }));
    }
    hosted.resolve(project, root.id, resolved.then_some(OWNER_USERNAME));
    let Some(root) = hosted.find(project, root.id) else {
        return FakeGitlab::not_found();
    };
    ResponseTemplate::new(200).set_body_json(gitlab_discussion(&hosted, root))
}

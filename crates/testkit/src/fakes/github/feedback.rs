//! What readers do to review comments on the fake GitHub: reactions and replies
//! through GitHub's routes (as the token's owner), and the same as other people
//! through the fake's own controls, which tests use to play a PR's readers.

use super::FakeGithub;
use super::people::{REACTIONS, actor, github_comment, user_named};
use crate::fakes::hosted::{HostedComment, HostedFake, Shared, body_json};
use chrono::{DateTime, Duration, TimeZone, Utc};
use reviewd_domain::model::diff::InlineComment;
use serde_json::{Value, json};
use wiremock::matchers::path_regex;
use wiremock::{Request, ResponseTemplate};

fn reacted_at(id: u64) -> DateTime<Utc> {
    let epoch = Utc.with_ymd_and_hms(2026, 11, 22, 0, 0, 0).single();
    epoch.unwrap_or_default() + Duration::seconds(i64::try_from(id).unwrap_or_default())
}

fn github_reaction((id, content, login): &(u64, String, String)) -> Value {
    json!({
        "id": id, "node_id": format!("REA_{id}"), "user": user_named(login),
        "content": content, "created_at": reacted_at(*id),
    })
}

/// The numbers in a request's path, in order (`/pulls/comments/7/reactions/9`: 7, 9).
fn path_ids(request: &Request) -> Vec<u64> {
    request
        .url
        .path()
        .split('/')
        .filter_map(|s| s.parse().ok())
        .collect()
}

/// Review comment `id` of the repository, if it has one by that id.
fn review_comment(hosted: &Shared, full_name: &str, id: u64) -> Option<HostedComment> {
    let hosted = hosted.lock().unwrap();
    hosted
        .find(full_name, id)
        .filter(|c| c.anchor.is_some())
        .cloned()
}

fn unprocessable(message: &str) -> ResponseTemplate {
    ResponseTemplate::new(422).set_body_json(json!({
        "message": "Validation Failed", "errors": [message],
        "documentation_url": "https://docs.github.com/rest/reactions/reactions", "status": "422",
    }))
}

impl FakeGithub {
    /// `GET`/`POST /pulls/comments/{id}/reactions` and `DELETE …/reactions/{id}` of
    /// the repository's review comments (given as the token's owner, or the App's
    /// bot with an installation token).
    pub(super) async fn serve_reactions(&self, full_name: &str) {
        let route = format!("^/api/v3/repos/{full_name}/pulls/comments/\\d+/reactions$");
        let (hosted, name) = (self.hosted().clone(), full_name.to_owned());
        self.serve("GET", path_regex(route.clone()), move |r: &Request| {
            let id = path_ids(r).first().copied().unwrap_or_default();
            match review_comment(&hosted, &name, id) {
                Some(c) => Self::page_of(c.reactions.iter().map(github_reaction).collect(), r),
                None => Self::not_found(),
            }
        })
        .await;
        let (hosted, name, app) = (
            self.hosted().clone(),
            full_name.to_owned(),
            self.app.clone(),
        );
        self.serve("POST", path_regex(route), move |r: &Request| {
            let user = actor(&app, r);
            let id = path_ids(r).first().copied().unwrap_or_default();
            let content = body_json(r)["content"]
                .as_str()
                .unwrap_or_default()
                .to_owned();
            if !REACTIONS.contains(&content.as_str()) {
                return unprocessable("content is not a valid reaction");
            }
            let Some(comment) = review_comment(&hosted, &name, id) else {
                return Self::not_found();
            };
            // GitHub answers a reaction the user already gave with it again, 200.
            let given = comment
                .reactions
                .iter()
                .any(|(_, n, u)| *n == content && *u == user);
            let mut hosted = hosted.lock().unwrap();
            let Some(reaction_id) = hosted.react(&name, id, &content, &user) else {
                return Self::not_found();
            };
            let reaction = (reaction_id, content, user);
            ResponseTemplate::new(if given { 200 } else { 201 })
                .set_body_json(github_reaction(&reaction))
        })
        .await;
        let one = format!("^/api/v3/repos/{full_name}/pulls/comments/\\d+/reactions/\\d+$");
        let (hosted, name) = (self.hosted().clone(), full_name.to_owned());
        self.serve("DELETE", path_regex(one), move |r: &Request| {
            let ids = path_ids(r);
            let (Some(&id), Some(&reaction)) = (ids.first(), ids.get(1)) else {
                return Self::not_found();
            };
            if review_comment(&hosted, &name, id).is_none()
                || !hosted.lock().unwrap().unreact(&name, id, reaction)
            {
                return Self::not_found();
            }
            ResponseTemplate::new(204)
        })
        .await;
    }

    /// `POST /pulls/{n}/comments/{id}/replies`: a reply in the thread of a review
    /// comment of that pull request, by the token's owner (or the App's bot).
    pub(super) async fn serve_replies(&self, full_name: &str, number: i64) {
        let route = format!("^/api/v3/repos/{full_name}/pulls/{number}/comments/\\d+/replies$");
        let (hosted, name, app) = (
            self.hosted().clone(),
            full_name.to_owned(),
            self.app.clone(),
        );
        let authors = self.authors.clone();
        self.serve("POST", path_regex(route), move |r: &Request| {
            let id = path_ids(r).get(1).copied().unwrap_or_default();
            let Some(body) = body_json(r)["body"].as_str().map(str::to_owned) else {
                return unprocessable("body is missing");
            };
            if review_comment(&hosted, &name, id).is_none_or(|c| c.number != number) {
                return Self::not_found();
            }
            let reply = hosted
                .lock()
                .unwrap()
                .reply(&name, id, &body, &actor(&app, r));
            match reply {
                Some(reply) => {
                    let authors = authors.lock().unwrap();
                    ResponseTemplate::new(201)
                        .set_body_json(github_comment(&name, &reply, &authors))
                }
                None => Self::not_found(),
            }
        })
        .await;
    }

    /// The review comments on a pull request (threads' first comments and replies),
    /// oldest first, as id and text: how a test finds what reviewd posted.
    #[must_use]
    pub fn review_comments(&self, full_name: &str, number: i64) -> Vec<(u64, String)> {
        self.lock()
            .comments_on(full_name, number)
            .into_iter()
            .filter(|c| c.anchor.is_some())
            .map(|c| (c.id, c.body))
            .collect()
    }

    /// `login` starts a thread of their own: a line comment on `path` at `line`
    /// (new side). Returns its id. What the server accepted lists it too.
    pub fn comment_as(
        &self,
        full_name: &str,
        number: i64,
        path: &str,
        line: u32,
        body: &str,
        login: &str,
    ) -> u64 {
        let comment = InlineComment {
            file_path: path.to_owned(),
            old_path: None,
            line,
            body: body.to_owned(),
            suggestion: None,
        };
        // The anchor's fields are merged into the comment as listed: the author
        // rides along there, as the shared store keeps line comments as reviewd's.
        let anchor = json!({
            "path": path, "line": line, "original_line": line, "side": "RIGHT",
            "subject_type": "line", "user": user_named(login), "author_association": "NONE",
        });
        let mut hosted = self.lock();
        hosted
            .line_comment(full_name, number, comment, "", anchor)
            .id
    }

    /// `login` reacts to comment `comment_id` with `content` (`+1`, `-1`, ...): the
    /// reaction's id, `None` for an unknown comment.
    pub fn react_as(
        &self,
        full_name: &str,
        comment_id: u64,
        content: &str,
        login: &str,
    ) -> Option<u64> {
        self.lock().react(full_name, comment_id, content, login)
    }

    /// Takes reaction `reaction_id` back; whether it was there.
    pub fn unreact(&self, full_name: &str, comment_id: u64, reaction_id: u64) -> bool {
        self.lock().unreact(full_name, comment_id, reaction_id)
    }

    /// `login` replies in the thread of comment `comment_id`: the reply's id, `None`
    /// for an unknown comment.
    pub fn reply_as(
        &self,
        full_name: &str,
        comment_id: u64,
        body: &str,
        login: &str,
    ) -> Option<u64> {
        self.lock()
            .reply(full_name, comment_id, body, login)
            .map(|c| c.id)
    }

    /// Resolves the thread of comment `comment_id` as `by`, or reopens it with
    /// `None`; whether the comment exists.
    pub fn resolve_as(&self, full_name: &str, comment_id: u64, by: Option<&str>) -> bool {
        self.lock().resolve(full_name, comment_id, by)
    }
}

//! Projects on the fake GitLab built from [`ProjectFixture`]s: merge requests with
//! their diffs, members, compares, notes, discussions (posted and listed) and hooks,
//! answered in GitLab's shapes from what was put there and what was posted since
//! (what `contract::hosting` runs the GitLab adapter against).

use super::{FakeGitlab, gitlab_project};
use crate::contract::hosting::{FakeServer, ServerAccount};
use crate::fakes::hosted::{
    EditScope, Hosted, HostedComment, HostedFake, Shared, paged, query_value, token_owner,
};
use crate::fakes::hosting::{MrFixture, Posted, ProjectFixture};
use crate::repository::{directories, git_blob_id, tar_gz};
use async_trait::async_trait;
use reviewd_domain::model::diff::{ChangeType, FileDiff, InlineComment};
use reviewd_domain::model::{PlatformType, PlatformUser};
use reviewd_domain::ports::ProjectRef;
use serde_json::{Value, json};
use std::cmp::Reverse;
use wiremock::matchers::{path, path_regex};
use wiremock::{Request, ResponseTemplate};

fn raw_text(bytes: &[u8]) -> ResponseTemplate {
    ResponseTemplate::new(200)
        .insert_header("content-type", "text/plain; charset=utf-8")
        .set_body_bytes(bytes.to_vec())
}

fn contains(haystack: &str, needle: Option<&str>) -> bool {
    needle.is_none_or(|n| haystack.to_lowercase().contains(&n.to_lowercase()))
}

fn gitlab_user(user: &PlatformUser) -> Value {
    json!({
        "id": user.id.parse::<i64>().unwrap_or_default(), "username": user.username, "name": user.name,
        "state": user.state, "avatar_url": user.avatar_url, "web_url": user.web_url,
    })
}

fn users_matching(users: &[Value], search: Option<&str>) -> Vec<Value> {
    users
        .iter()
        .filter(|u| {
            contains(u["username"].as_str().unwrap_or_default(), search)
                || contains(u["name"].as_str().unwrap_or_default(), search)
        })
        .cloned()
        .collect()
}

fn gitlab_merge_request(project_id: u64, full_path: &str, mr: &MrFixture) -> Value {
    json!({
        "id": project_id * 1000 + mr.iid.unsigned_abs(), "iid": mr.iid, "project_id": project_id,
        "title": mr.title, "description": mr.description, "state": mr.state.as_str(),
        "web_url": format!("https://gitlab.example.com/{full_path}/-/merge_requests/{}", mr.iid),
        "source_branch": mr.source_branch, "target_branch": mr.target_branch,
        "author": { "id": mr.author.id.parse::<i64>().unwrap_or_default(), "username": mr.author.username, "name": mr.author.name },
        "sha": mr.head_sha, "draft": mr.draft, "work_in_progress": mr.draft,
        "diff_refs": { "base_sha": mr.base_sha, "head_sha": mr.head_sha, "start_sha": mr.start_sha },
        "created_at": mr.created_at, "updated_at": mr.updated_at,
    })
}

/// A file as `/diffs` and `/repository/compare` list it (no patch: an empty `diff`).
fn gitlab_diff(file: &FileDiff) -> Value {
    json!({
        "old_path": file.old_path.as_deref().unwrap_or(&file.new_path), "new_path": file.new_path,
        "a_mode": "100644", "b_mode": "100644",
        "new_file": file.change_type == ChangeType::New,
        "renamed_file": file.change_type == ChangeType::Renamed,
        "deleted_file": file.change_type == ChangeType::Deleted,
        "diff": file.diff.as_deref().unwrap_or_default(),
    })
}

/// The line comment a discussion's `position` stands for.
fn positioned_comment(body: &Value) -> InlineComment {
    let position = &body["position"];
    let new_path = position["new_path"].as_str().unwrap_or_default().to_owned();
    InlineComment {
        old_path: position["old_path"]
            .as_str()
            .filter(|old| *old != new_path)
            .map(str::to_owned),
        file_path: new_path,
        line: u32::try_from(position["new_line"].as_u64().unwrap_or_default()).unwrap_or_default(),
        body: body["body"].as_str().unwrap_or_default().to_owned(),
        // GitLab has no field for one: a suggestion is a block in the body.
        suggestion: None,
    }
}

/// The id of the discussion a note opened: derived from the note's id, so that
/// [`discussion_root`] reads it back.
pub(super) fn discussion_id(note_id: u64) -> String {
    format!("{note_id:040x}")
}

/// The id of the note that opened discussion `id`.
pub(super) fn discussion_root(id: &str) -> Option<u64> {
    u64::from_str_radix(id, 16).ok()
}

/// Who the token belongs to, as `/user` answers and notes and award emoji show
/// their author.
pub(super) const OWNER: (u64, &str, &str) = (7, "reviewer-bot", "Reviewer Bot");

/// The token owner's username: what the fake's own routes act as.
pub(super) const OWNER_USERNAME: &str = OWNER.1;

/// A user as notes and award emoji show them (GitLab's `UserBasic`): the token
/// owner for `None`, else the instance's user of that name, or a stranger with an
/// id made up from the name.
pub(super) fn gitlab_user_named(hosted: &Hosted, username: Option<&str>) -> Value {
    let (id, username, name) = match username {
        None | Some(OWNER_USERNAME) => (OWNER.0, OWNER.1.to_owned(), OWNER.2.to_owned()),
        Some(u) => {
            let known = hosted.users.iter().find(|user| user["username"] == u);
            let id = known
                .and_then(|user| user["id"].as_u64())
                .unwrap_or_else(|| {
                    u.bytes()
                        .fold(0_u64, |h, b| (h * 31 + u64::from(b)) % 900_000)
                        + 100_000
                });
            let name = known
                .and_then(|user| user["name"].as_str())
                .unwrap_or(u)
                .to_owned();
            (id, u.to_owned(), name)
        }
    };
    json!({
        "id": id, "username": username, "name": name, "state": "active",
        "avatar_url": format!("https://gitlab.example.com/uploads/-/system/user/avatar/{id}/avatar.png"),
        "web_url": format!("https://gitlab.example.com/{username}"),
    })
}

/// The first note of the thread `comment` is in (itself when it opened one).
fn thread_root<'a>(hosted: &'a Hosted, comment: &'a HostedComment) -> &'a HostedComment {
    comment
        .in_reply_to
        .and_then(|root| hosted.find(&comment.project, root))
        .unwrap_or(comment)
}

/// The replies in the thread `root` opened, oldest first.
fn replies_to(hosted: &Hosted, root: &HostedComment) -> Vec<HostedComment> {
    hosted
        .comments_on(&root.project, root.number)
        .into_iter()
        .filter(|c| c.in_reply_to == Some(root.id))
        .collect()
}

/// Whether the thread `root` opened can be resolved: a line comment's, or a
/// general comment's once someone answered it (GitLab turns it into a thread).
pub(super) fn resolvable(hosted: &Hosted, root: &HostedComment) -> bool {
    root.anchor.is_some() || !replies_to(hosted, root).is_empty()
}

/// The id of the merge request a note is on, as [`gitlab_merge_request`] numbers it.
fn noteable_id(comment: &HostedComment) -> u64 {
    comment.project.parse::<u64>().unwrap_or_default() * 1000 + comment.number.unsigned_abs()
}

/// A note as GitLab shows it: a `DiffNote` with its `position` for a line comment
/// and the replies in its thread, a `DiscussionNote` in a general comment's thread,
/// a plain note (`type: null`) for a general comment alone. Resolvable notes carry
/// their thread's resolution, as GitLab marks every note of a resolved thread.
pub(super) fn gitlab_note(hosted: &Hosted, comment: &HostedComment) -> Value {
    let root = thread_root(hosted, comment);
    let resolvable = resolvable(hosted, root);
    let kind = match (comment.anchor.is_some(), resolvable) {
        (true, _) => json!("DiffNote"),
        (false, true) => json!("DiscussionNote"),
        (false, false) => Value::Null,
    };
    let mut note = json!({
        "id": comment.id, "type": kind, "body": comment.body, "attachment": null,
        "author": gitlab_user_named(hosted, comment.author.as_deref()),
        "created_at": comment.created_at(), "updated_at": comment.created_at(), "system": false,
        "noteable_id": noteable_id(comment), "noteable_type": "MergeRequest", "noteable_iid": comment.number,
        "resolvable": resolvable, "confidential": false, "internal": false,
    });
    if resolvable {
        let by = root.resolved_by.as_deref();
        note["resolved"] = json!(by.is_some());
        note["resolved_by"] = by.map_or(Value::Null, |u| gitlab_user_named(hosted, Some(u)));
        note["resolved_at"] = by.map_or(Value::Null, |_| json!(root.created_at()));
    }
    if let Some(Value::Object(anchor)) = &comment.anchor {
        for (key, value) in anchor {
            note[key] = value.clone();
        }
    }
    // After the anchor, which a reply shares with the note that opened its thread
    // (and which names the author of a thread someone else opened).
    if comment.author.is_some() {
        note["author"] = gitlab_user_named(hosted, comment.author.as_deref());
    }
    note
}

/// A discussion as `POST` answers it and `GET /discussions` lists it: the note that
/// opened it and the replies, oldest first; a general comment nobody answered is an
/// `individual_note`, outside any thread.
pub(super) fn gitlab_discussion(hosted: &Hosted, root: &HostedComment) -> Value {
    let replies = replies_to(hosted, root);
    let notes: Vec<Value> = std::iter::once(root)
        .chain(&replies)
        .map(|c| gitlab_note(hosted, c))
        .collect();
    json!({
        "id": discussion_id(root.id),
        "individual_note": root.anchor.is_none() && replies.is_empty(),
        "notes": notes,
    })
}

fn ids_of(body: &Value, key: &str) -> Vec<String> {
    let id = |v: &Value| v.as_str().map_or_else(|| v.to_string(), str::to_owned);
    body[key]
        .as_array()
        .map(|ids| ids.iter().map(id).collect())
        .unwrap_or_default()
}

#[async_trait]
impl HostedFake for FakeGitlab {
    /// `/projects` and `/users` over every added project.
    async fn serve_lists(&self) {
        self.serve_projects("/api/v4/projects", |_| ()).await;
        let hosted = self.hosted.clone();
        self.serve("GET", path("/api/v4/users"), move |r: &Request| {
            let users = users_matching(
                &hosted.lock().unwrap().users,
                query_value(r, "search").as_deref(),
            );
            Self::page_of(users, r)
        })
        .await;
    }

    fn hosted(&self) -> &Shared {
        &self.hosted
    }

    fn auth(&self) -> (&'static str, String) {
        ("PRIVATE-TOKEN", self.token.clone())
    }

    /// With GitLab's pagination headers.
    fn page_of(items: Vec<Value>, request: &Request) -> ResponseTemplate {
        let page = paged(items, request, 20);
        let next = if page.page < page.pages {
            (page.page + 1).to_string()
        } else {
            String::new()
        };
        ResponseTemplate::new(200)
            .set_body_json(page.items)
            .insert_header("x-total", page.total.to_string())
            .insert_header("x-total-pages", page.pages.to_string())
            .insert_header("x-page", page.page.to_string())
            .insert_header("x-per-page", page.per_page.to_string())
            .insert_header("x-next-page", next)
    }

    fn not_found() -> ResponseTemplate {
        ResponseTemplate::new(404).set_body_json(json!({ "message": "404 Not found" }))
    }

    /// Echoing the URL, never the token, as GitLab does (its flags typed, from a
    /// form body too).
    fn hook(id: u64, project: &str, body: &Value) -> Value {
        let body = super::typed("", body.clone());
        json!({
            "id": id, "url": body["url"], "project_id": project.parse::<u64>().unwrap_or_default(),
            "merge_requests_events": body["merge_requests_events"], "note_events": body["note_events"],
            "emoji_events": body["emoji_events"].as_bool().unwrap_or_default(), "push_events": body["push_events"], "enable_ssl_verification": body["enable_ssl_verification"],
            "created_at": "2026-11-22T00:00:00Z",
        })
    }
}

#[async_trait]
impl FakeServer for FakeGitlab {
    /// Who [`FakeGitlab::start`] says the token belongs to.
    fn account(&self) -> ServerAccount<'_> {
        let owner = token_owner(
            &OWNER.0.to_string(),
            OWNER.1,
            OWNER.2,
            &["api", "read_user"],
        );
        ServerAccount {
            platform_type: PlatformType::Gitlab,
            server: &self.server,
            token: &self.token,
            owner,
        }
    }

    /// Puts a project on the server with the next free id: the project, its members
    /// (and, among the instance's users, `/users`), its merge requests with their
    /// diffs, discussions, notes and assignment, and its hooks.
    async fn add_project(&self, fixture: &ProjectFixture) -> ProjectRef {
        let members: Vec<Value> = fixture.members.iter().map(gitlab_user).collect();
        self.lock().users.extend(members.iter().cloned());
        let (id, project) = self.list_project(fixture, gitlab_project).await;
        let base = format!("/api/v4/projects/{id}");
        self.serve_json(path(base.clone()), project).await;
        // One member with inherited memberships: the fixture's members are
        // developers (30); anyone else is not a member (404).
        let all = members.clone();
        self.serve(
            "GET",
            path_regex(format!("^{base}/members/all/\\d+$")),
            move |r: &Request| {
                let id = r.url.path().rsplit('/').next().unwrap_or_default();
                let id: Option<u64> = id.parse().ok();
                match all.iter().find(|m| id.is_some() && m["id"].as_u64() == id) {
                    Some(member) => {
                        let mut member = member.clone();
                        member["access_level"] = json!(30);
                        ResponseTemplate::new(200).set_body_json(member)
                    }
                    None => ResponseTemplate::new(404)
                        .set_body_json(json!({ "message": "404 Not found" })),
                }
            },
        )
        .await;
        for (route, param) in [("/members/all", "query"), ("/users", "search")] {
            let members = members.clone();
            self.serve("GET", path(format!("{base}{route}")), move |r: &Request| {
                let matching = users_matching(&members, query_value(r, param).as_deref());
                Self::page_of(matching, r)
            })
            .await;
        }
        self.serve_merge_request_list(id, fixture).await;
        for mr in &fixture.merge_requests {
            self.serve_merge_request(id, &fixture.full_path, mr).await;
            self.serve_repo_files(id, mr).await;
        }
        self.serve_hooks(&format!("{base}/hooks"), &id.to_string())
            .await;
        self.serve_statuses(&base, &id.to_string()).await;
        ProjectRef {
            id: id.to_string(),
            full_path: fixture.full_path.clone(),
        }
    }

    /// What `GET /repository/compare?from&to` answers for the project.
    async fn add_compare(&self, project: &ProjectRef, from: &str, to: &str, files: &[FileDiff]) {
        let body = json!({
            "commit": { "id": to }, "commits": [{ "id": to }],
            "diffs": files.iter().map(gitlab_diff).collect::<Vec<_>>(),
            "compare_timeout": false, "compare_same_ref": from == to,
        });
        let route = format!("/api/v4/projects/{}/repository/compare", project.id);
        let (from, to) = (from.to_owned(), to.to_owned());
        let compare = move |r: &Request| {
            r.url.path() == route
                && query_value(r, "from").as_ref() == Some(&from)
                && query_value(r, "to").as_ref() == Some(&to)
        };
        self.serve_json(compare, body).await;
    }

    fn posted(&self, project: &ProjectRef, iid: i64) -> Vec<Posted> {
        self.lock().posted(&project.id, iid)
    }
}

impl FakeGitlab {
    /// `/merge_requests`: by `state` (all by default) and `search` (title and
    /// description), newest first.
    async fn serve_merge_request_list(&self, id: u64, fixture: &ProjectFixture) {
        let mut mrs = fixture.merge_requests.clone();
        mrs.sort_by_key(|m| Reverse(m.created_at));
        let full_path = fixture.full_path.clone();
        self.serve(
            "GET",
            path(format!("/api/v4/projects/{id}/merge_requests")),
            move |r: &Request| {
                let state = query_value(r, "state").unwrap_or_else(|| "all".to_owned());
                let search = query_value(r, "search");
                let listed = mrs
                    .iter()
                    .filter(|m| state == "all" || m.state.as_str() == state)
                    .filter(|m| {
                        contains(&m.title, search.as_deref())
                            || contains(
                                m.description.as_deref().unwrap_or_default(),
                                search.as_deref(),
                            )
                    })
                    .map(|m| gitlab_merge_request(id, &full_path, m))
                    .collect();
                Self::page_of(listed, r)
            },
        )
        .await;
    }

    /// `GET /repository/files/:path/raw?ref=<sha>`: the MR's repository files at its
    /// head and base, raw (any other path or commit is GitLab's 404); the tree of
    /// each commit (paged), its blobs, and its `tar.gz` archive.
    async fn serve_repo_files(&self, id: u64, mr: &MrFixture) {
        let repo = format!("/api/v4/projects/{id}/repository");
        for (sha, files) in [
            (&mr.head_sha, &mr.repo_files),
            (&mr.base_sha, &mr.base_files),
        ] {
            for (file, content) in files {
                let encoded: String =
                    url::form_urlencoded::byte_serialize(file.as_bytes()).collect();
                let route = format!("{repo}/files/{encoded}/raw");
                let at = sha.clone();
                let at_commit = move |r: &Request| {
                    r.url.path() == route && query_value(r, "ref").as_deref() == Some(at.as_str())
                };
                self.serve("GET", at_commit, raw_text(content.as_bytes()))
                    .await;
                let blob = format!("{repo}/blobs/{}/raw", git_blob_id(content.as_bytes()));
                self.serve("GET", path(blob), raw_text(content.as_bytes()))
                    .await;
            }
            let mut entries: Vec<Value> = directories(files)
                .into_iter()
                .map(|dir| {
                    let name = dir.rsplit('/').next().unwrap_or(&dir).to_owned();
                    json!({ "id": git_blob_id(dir.as_bytes()), "name": name, "type": "tree", "path": dir, "mode": "040000" })
                })
                .collect();
            entries.extend(files.iter().map(|(file, content)| {
                let name = file.rsplit('/').next().unwrap_or(file);
                json!({ "id": git_blob_id(content.as_bytes()), "name": name, "type": "blob", "path": file, "mode": "100644" })
            }));
            let (route, at) = (format!("{repo}/tree"), sha.clone());
            let tree_at = move |r: &Request| {
                r.url.path() == route
                    && query_value(r, "ref").as_deref() == Some(at.as_str())
                    && query_value(r, "recursive").as_deref() == Some("true")
            };
            self.serve("GET", tree_at, move |r: &Request| {
                Self::page_of(entries.clone(), r)
            })
            .await;
            let (route, at) = (format!("{repo}/archive.tar.gz"), sha.clone());
            let archive_at = move |r: &Request| {
                r.url.path() == route && query_value(r, "sha").as_deref() == Some(at.as_str())
            };
            let archive = ResponseTemplate::new(200)
                .insert_header("content-type", "application/gzip")
                .set_body_bytes(tar_gz(&format!("project-{sha}"), files));
            self.serve("GET", archive_at, archive).await;
        }
    }

    async fn serve_merge_request(&self, id: u64, full_path: &str, mr: &MrFixture) {
        let base = format!("/api/v4/projects/{id}/merge_requests/{}", mr.iid);
        let json = gitlab_merge_request(id, full_path, mr);
        self.serve_json(path(base.clone()), json.clone()).await;
        let files: Vec<Value> = mr.files.iter().map(gitlab_diff).collect();
        self.serve_list(&format!("{base}/diffs"), files).await;
        let (hosted, iid, fixture) = (self.hosted.clone(), mr.iid, mr.clone());
        let project = id.to_string();
        self.serve(
            "POST",
            path(format!("{base}/discussions")),
            move |r: &Request| discuss(&hosted, &project, &fixture, &FakeGitlab::params(r)),
        )
        .await;
        let (hosted, project) = (self.hosted.clone(), id.to_string());
        self.serve(
            "GET",
            path(format!("{base}/discussions")),
            move |r: &Request| {
                let hosted = hosted.lock().unwrap();
                let discussions = hosted
                    .comments_on(&project, iid)
                    .iter()
                    .filter(|c| c.in_reply_to.is_none())
                    .map(|root| gitlab_discussion(&hosted, root))
                    .collect();
                Self::page_of(discussions, r)
            },
        )
        .await;
        // Every note, replies too, newest first as GitLab sorts them by default.
        let (hosted, project) = (self.hosted.clone(), id.to_string());
        self.serve("GET", path(format!("{base}/notes")), move |r: &Request| {
            let hosted = hosted.lock().unwrap();
            let mut notes = hosted.comments_on(&project, iid);
            notes.reverse();
            Self::page_of(notes.iter().map(|c| gitlab_note(&hosted, c)).collect(), r)
        })
        .await;
        let (hosted, project) = (self.hosted.clone(), id.to_string());
        self.serve("POST", path(format!("{base}/notes")), move |r: &Request| {
            note(&hosted, &project, iid, &FakeGitlab::params(r))
        })
        .await;
        let (hosted, project) = (self.hosted.clone(), id.to_string());
        self.serve(
            "PUT",
            path_regex(format!("^{base}/notes/\\d+$")),
            move |r: &Request| edit_note(&hosted, &project, iid, r),
        )
        .await;
        self.serve_feedback(id, iid).await;
        let (hosted, project) = (self.hosted.clone(), id.to_string());
        self.serve("PUT", path(base), move |r: &Request| {
            let body = FakeGitlab::params(r);
            // An edit of the description (`describe`), or of the assignment.
            let posted = match body["description"].as_str() {
                Some(text) => Posted::Description {
                    body: text.to_owned(),
                },
                None => Posted::Assign {
                    assignee_ids: ids_of(&body, "assignee_ids"),
                    reviewer_ids: ids_of(&body, "reviewer_ids"),
                },
            };
            hosted.lock().unwrap().post(&project, iid, posted);
            ResponseTemplate::new(200).set_body_json(json.clone())
        })
        .await;
    }
}

/// `POST /discussions`: GitLab refuses a position it cannot place (400, `line_code`).
fn discuss(hosted: &Shared, project: &str, mr: &MrFixture, body: &Value) -> ResponseTemplate {
    let comment = positioned_comment(body);
    if !mr.takes_comment(PlatformType::Gitlab, &comment) {
        return ResponseTemplate::new(400).set_body_json(json!({
            "message": "400 Bad request - Note {:line_code=>[\"can't be blank\", \"must be a valid line code\"]}",
        }));
    }
    let head_sha = body["position"]["head_sha"].as_str().unwrap_or_default();
    let anchor = json!({ "position": body["position"] });
    let mut hosted = hosted.lock().unwrap();
    let posted = hosted.line_comment(project, mr.iid, comment, head_sha, anchor);
    ResponseTemplate::new(201).set_body_json(gitlab_discussion(&hosted, &posted))
}

/// `POST /notes`: a general comment.
fn note(hosted: &Shared, project: &str, iid: i64, body: &Value) -> ResponseTemplate {
    let text = body["body"].as_str().unwrap_or_default();
    let mut hosted = hosted.lock().unwrap();
    let posted = hosted.comment(project, iid, text);
    ResponseTemplate::new(201).set_body_json(gitlab_note(&hosted, &posted))
}

/// `PUT /notes/:id`: any note of this MR, line notes too; 404 for one it does not
/// have.
fn edit_note(hosted: &Shared, project: &str, iid: i64, request: &Request) -> ResponseTemplate {
    let scope = EditScope::MergeRequest(iid);
    let mut hosted = hosted.lock().unwrap();
    match hosted.edit_comment(project, &scope, request) {
        Some(edited) => ResponseTemplate::new(200).set_body_json(gitlab_note(&hosted, &edited)),
        None => FakeGitlab::not_found(),
    }
}

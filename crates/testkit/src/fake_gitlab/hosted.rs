//! Projects on the fake GitLab built from [`ProjectFixture`]s: merge requests with
//! their diffs, members, compares, notes, discussions and hooks, answered in GitLab's
//! shapes from what was put there and what was posted since (what `contract::hosting`
//! runs the GitLab adapter against).

use super::{FakeGitlab, gitlab_project};
use crate::fakes::hosting::{MrFixture, Posted, ProjectFixture};
use reviewd_domain::model::diff::{ChangeType, FileDiff, InlineComment};
use reviewd_domain::model::{PlatformType, PlatformUser};
use reviewd_domain::ports::ProjectRef;
use serde_json::{Value, json};
use std::cmp::Reverse;
use std::sync::{Arc, Mutex};
use wiremock::matchers::{header, method, path, path_regex, query_param};
use wiremock::{Match, Mock, Request, Respond, ResponseTemplate};

pub(crate) struct Hosted {
    projects: Vec<Value>,
    /// Every project's members: the instance's users.
    users: Vec<Value>,
    posts: Vec<(u64, i64, Posted)>,
    /// `(project, iid, note id)` of the general comments.
    notes: Vec<(u64, i64, u64)>,
    hooks: Vec<(u64, Value)>,
    last_id: u64,
}

impl Default for Hosted {
    fn default() -> Self {
        Self {
            projects: Vec::new(),
            users: Vec::new(),
            posts: Vec::new(),
            notes: Vec::new(),
            hooks: Vec::new(),
            // Clear of the ids `with_projects` serves.
            last_id: 5000,
        }
    }
}

impl Hosted {
    fn next_id(&mut self) -> u64 {
        self.last_id += 1;
        self.last_id
    }
}

type Shared = Arc<Mutex<Hosted>>;

/// One query parameter of a request.
pub(crate) fn query_value(request: &Request, key: &str) -> Option<String> {
    request
        .url
        .query_pairs()
        .find(|(k, _)| k == key)
        .map(|(_, v)| v.into_owned())
}

/// `page` and `per_page` of a request, with the platforms' defaults.
pub(crate) fn requested_page(request: &Request, default_per_page: usize) -> (usize, usize) {
    let number = |key, default: usize| {
        query_value(request, key)
            .and_then(|v| v.parse().ok())
            .unwrap_or(default)
            .max(1)
    };
    (number("page", 1), number("per_page", default_per_page))
}

fn contains(haystack: &str, needle: Option<&str>) -> bool {
    needle.is_none_or(|n| haystack.to_lowercase().contains(&n.to_lowercase()))
}

fn body_json(request: &Request) -> Value {
    serde_json::from_slice(&request.body).unwrap_or_default()
}

fn not_found() -> ResponseTemplate {
    ResponseTemplate::new(404).set_body_json(json!({ "message": "404 Not found" }))
}

/// A page of `items` with GitLab's pagination headers.
fn page_of(items: Vec<Value>, request: &Request) -> ResponseTemplate {
    let (page, per_page) = requested_page(request, 20);
    let total = items.len();
    let pages = total.div_ceil(per_page).max(1);
    let next = if page < pages {
        (page + 1).to_string()
    } else {
        String::new()
    };
    let slice: Vec<Value> = items
        .into_iter()
        .skip((page - 1) * per_page)
        .take(per_page)
        .collect();
    ResponseTemplate::new(200)
        .set_body_json(slice)
        .insert_header("x-total", total.to_string())
        .insert_header("x-total-pages", pages.to_string())
        .insert_header("x-page", page.to_string())
        .insert_header("x-per-page", per_page.to_string())
        .insert_header("x-next-page", next)
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
    }
}

fn ids_of(body: &Value, key: &str) -> Vec<String> {
    body[key]
        .as_array()
        .map(|ids| ids.iter().map(ToString::to_string).collect())
        .unwrap_or_default()
}

impl FakeGitlab {
    /// Mounts `respond` for `verb` on `route`, for the known token only.
    async fn serve(
        &self,
        verb: &str,
        route: impl Match + 'static,
        respond: impl Respond + 'static,
    ) {
        Mock::given(method(verb))
            .and(route)
            .and(header("PRIVATE-TOKEN", self.token.as_str()))
            .respond_with(respond)
            .mount(&self.server)
            .await;
    }

    fn hosted(&self) -> std::sync::MutexGuard<'_, Hosted> {
        self.hosted.lock().unwrap()
    }

    /// Puts a project on the server with the next free id: the project, its members
    /// (and, among the instance's users, `/users`), its merge requests with their
    /// diffs, discussions, notes and assignment, and its hooks.
    pub async fn add_project(&self, fixture: &ProjectFixture) -> ProjectRef {
        let members: Vec<Value> = fixture.members.iter().map(gitlab_user).collect();
        let (id, project, first) = {
            let mut hosted = self.hosted();
            let id = hosted.next_id();
            let mut project = gitlab_project(id, &fixture.full_path);
            project["default_branch"] = json!(fixture.default_branch);
            hosted.projects.push(project.clone());
            hosted.users.extend(members.iter().cloned());
            (id, project, hosted.projects.len() == 1)
        };
        if first {
            self.serve_instance_lists().await;
        }
        let base = format!("/api/v4/projects/{id}");
        self.serve(
            "GET",
            path(base.clone()),
            ResponseTemplate::new(200).set_body_json(project),
        )
        .await;
        for (route, param) in [("/members/all", "query"), ("/users", "search")] {
            let members = members.clone();
            self.serve("GET", path(format!("{base}{route}")), move |r: &Request| {
                page_of(
                    users_matching(&members, query_value(r, param).as_deref()),
                    r,
                )
            })
            .await;
        }
        self.serve_merge_request_list(id, fixture).await;
        for mr in &fixture.merge_requests {
            self.serve_merge_request(id, &fixture.full_path, mr).await;
        }
        self.serve_hooks(id).await;
        ProjectRef {
            id: id.to_string(),
            full_path: fixture.full_path.clone(),
        }
    }

    /// What `GET /repository/compare?from&to` answers for the project.
    pub async fn add_compare(
        &self,
        project: &ProjectRef,
        from: &str,
        to: &str,
        files: &[FileDiff],
    ) {
        let body = json!({
            "commit": { "id": to }, "commits": [{ "id": to }],
            "diffs": files.iter().map(gitlab_diff).collect::<Vec<_>>(),
            "compare_timeout": false, "compare_same_ref": from == to,
        });
        Mock::given(method("GET"))
            .and(path(format!(
                "/api/v4/projects/{}/repository/compare",
                project.id
            )))
            .and(query_param("from", from))
            .and(query_param("to", to))
            .and(header("PRIVATE-TOKEN", self.token.as_str()))
            .respond_with(ResponseTemplate::new(200).set_body_json(body))
            .mount(&self.server)
            .await;
    }

    /// What the server accepted on a merge request of an added project, oldest first.
    #[must_use]
    pub fn posted(&self, project: &ProjectRef, iid: i64) -> Vec<Posted> {
        let id: u64 = project.id.parse().unwrap_or_default();
        self.hosted()
            .posts
            .iter()
            .filter(|(p, i, _)| *p == id && *i == iid)
            .map(|(_, _, posted)| posted.clone())
            .collect()
    }

    /// `/projects` and `/users` over every added project.
    async fn serve_instance_lists(&self) {
        let hosted = self.hosted.clone();
        self.serve("GET", path("/api/v4/projects"), move |r: &Request| {
            page_of(hosted.lock().unwrap().projects.clone(), r)
        })
        .await;
        let hosted = self.hosted.clone();
        self.serve("GET", path("/api/v4/users"), move |r: &Request| {
            let users = users_matching(
                &hosted.lock().unwrap().users,
                query_value(r, "search").as_deref(),
            );
            page_of(users, r)
        })
        .await;
    }

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
                page_of(listed, r)
            },
        )
        .await;
    }

    async fn serve_merge_request(&self, id: u64, full_path: &str, mr: &MrFixture) {
        let base = format!("/api/v4/projects/{id}/merge_requests/{}", mr.iid);
        let json = gitlab_merge_request(id, full_path, mr);
        self.serve(
            "GET",
            path(base.clone()),
            ResponseTemplate::new(200).set_body_json(json.clone()),
        )
        .await;
        let files: Vec<Value> = mr.files.iter().map(gitlab_diff).collect();
        self.serve("GET", path(format!("{base}/diffs")), move |r: &Request| {
            page_of(files.clone(), r)
        })
        .await;
        let (hosted, iid, fixture) = (self.hosted.clone(), mr.iid, mr.clone());
        self.serve(
            "POST",
            path(format!("{base}/discussions")),
            move |r: &Request| discuss(&hosted, id, &fixture, &body_json(r)),
        )
        .await;
        let hosted = self.hosted.clone();
        self.serve("POST", path(format!("{base}/notes")), move |r: &Request| {
            note(&hosted, id, iid, &body_json(r))
        })
        .await;
        let hosted = self.hosted.clone();
        self.serve(
            "PUT",
            path_regex(format!("^{base}/notes/\\d+$")),
            move |r: &Request| edit_note(&hosted, id, iid, r),
        )
        .await;
        let hosted = self.hosted.clone();
        self.serve("PUT", path(base), move |r: &Request| {
            let body = body_json(r);
            let posted = Posted::Assign {
                assignee_ids: ids_of(&body, "assignee_ids"),
                reviewer_ids: ids_of(&body, "reviewer_ids"),
            };
            hosted.lock().unwrap().posts.push((id, iid, posted));
            ResponseTemplate::new(200).set_body_json(json.clone())
        })
        .await;
    }

    /// `/hooks` of a project: listed, created (echoing the URL, never the token, as
    /// GitLab does) and deleted.
    async fn serve_hooks(&self, id: u64) {
        let hooks = format!("/api/v4/projects/{id}/hooks");
        let hosted = self.hosted.clone();
        self.serve("GET", path(hooks.clone()), move |r: &Request| {
            let listed = hosted
                .lock()
                .unwrap()
                .hooks
                .iter()
                .filter(|(p, _)| *p == id)
                .map(|(_, h)| h.clone())
                .collect();
            page_of(listed, r)
        })
        .await;
        let hosted = self.hosted.clone();
        self.serve("POST", path(hooks.clone()), move |r: &Request| {
            let body = body_json(r);
            let mut hosted = hosted.lock().unwrap();
            let hook = json!({
                "id": hosted.next_id(), "url": body["url"], "project_id": id,
                "merge_requests_events": body["merge_requests_events"], "note_events": body["note_events"],
                "push_events": body["push_events"], "enable_ssl_verification": body["enable_ssl_verification"],
                "created_at": "2026-11-22T00:00:00Z",
            });
            hosted.hooks.push((id, hook.clone()));
            ResponseTemplate::new(201).set_body_json(hook)
        })
        .await;
        let hosted = self.hosted.clone();
        self.serve(
            "DELETE",
            path_regex(format!("^{hooks}/\\d+$")),
            move |r: &Request| {
                let hook_id = r
                    .url
                    .path()
                    .rsplit('/')
                    .next()
                    .and_then(|s| s.parse::<u64>().ok());
                let mut hosted = hosted.lock().unwrap();
                let before = hosted.hooks.len();
                hosted
                    .hooks
                    .retain(|(p, h)| !(*p == id && h["id"].as_u64() == hook_id));
                if hosted.hooks.len() == before {
                    return not_found();
                }
                ResponseTemplate::new(204)
            },
        )
        .await;
    }
}

/// `POST /discussions`: GitLab refuses a position it cannot place (400, `line_code`).
fn discuss(hosted: &Shared, project: u64, mr: &MrFixture, body: &Value) -> ResponseTemplate {
    let comment = positioned_comment(body);
    if !mr.takes_comment(PlatformType::HostA, &comment) {
        return ResponseTemplate::new(400).set_body_json(json!({
            "message": "400 Bad request - Note {:line_code=>[\"can't be blank\", \"must be a valid line code\"]}",
        }));
    }
    let mut hosted = hosted.lock().unwrap();
    let note_id = hosted.next_id();
    let head_sha = body["position"]["head_sha"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    hosted
        .posts
        .push((project, mr.iid, Posted::Inline { comment, head_sha }));
    ResponseTemplate::new(201).set_body_json(json!({
        "id": format!("{note_id:040x}"), "individual_note": false,
        "notes": [{ "id": note_id, "type": "DiffNote", "body": body["body"], "position": body["position"], "system": false }],
    }))
}

/// `POST /notes`: a general comment.
fn note(hosted: &Shared, project: u64, iid: i64, body: &Value) -> ResponseTemplate {
    let mut hosted = hosted.lock().unwrap();
    let id = hosted.next_id();
    hosted.notes.push((project, iid, id));
    let text = body["body"].as_str().unwrap_or_default().to_owned();
    let posted = Posted::Comment {
        id: id.to_string(),
        body: text.clone(),
    };
    hosted.posts.push((project, iid, posted));
    ResponseTemplate::new(201).set_body_json(json!({
        "id": id, "type": null, "body": text, "system": false, "noteable_type": "MergeRequest",
        "noteable_iid": iid, "author": { "id": 7, "username": "reviewer-bot" }, "created_at": "2026-11-22T00:00:00Z",
    }))
}

/// `PUT /notes/:id`: 404 for a note this MR does not have.
fn edit_note(hosted: &Shared, project: u64, iid: i64, request: &Request) -> ResponseTemplate {
    let id: u64 = request
        .url
        .path()
        .rsplit('/')
        .next()
        .and_then(|s| s.parse().ok())
        .unwrap_or_default();
    let mut hosted = hosted.lock().unwrap();
    if !hosted.notes.contains(&(project, iid, id)) {
        return not_found();
    }
    let body = body_json(request)["body"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    let posted = Posted::Edit {
        id: id.to_string(),
        body: body.clone(),
    };
    hosted.posts.push((project, iid, posted));
    ResponseTemplate::new(200).set_body_json(json!({ "id": id, "body": body, "system": false }))
}

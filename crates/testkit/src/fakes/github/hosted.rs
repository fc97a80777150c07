//! Repositories on the fake GitHub built from [`ProjectFixture`]s: pull requests with
//! their files, collaborators, compares, reviews and their comments (with replies and
//! reactions, see `feedback`), issue comments (posted and listed), assignment and
//! hooks, answered in GitHub's shapes from what was put there and what was posted
//! since (what `contract::hosting` runs the GitHub adapter against).

use super::access::Access;
use super::people::{Authors, bot_of, bot_user, github_comment, user_named};
use super::{FakeGithub, github_repo};
use crate::contract::hosting::{FakeServer, ServerAccount};
use crate::fakes::hosted::{
    EditScope, HostedFake, Paged, Shared, body_json, paged, query_value, token_owner,
};
use crate::fakes::hosting::{MrFixture, Posted, ProjectFixture};
use crate::repository::{directories, git_blob_id, tar_gz};
use async_trait::async_trait;
use reviewd_domain::model::diff::{ChangeType, FileDiff, InlineComment};
use reviewd_domain::model::{MrState, PlatformType, PlatformUser};
use reviewd_domain::ports::ProjectRef;
use serde_json::{Value, json};
use std::cmp::Reverse;
use wiremock::matchers::{method, path, path_regex};
use wiremock::{Match, Mock, Request, Respond, ResponseTemplate};

/// `bytes` in base64, wrapped at 60 columns as GitHub wraps file contents.
fn wrapped_base64(bytes: &[u8]) -> String {
    use base64::Engine as _;
    let encoded = base64::engine::general_purpose::STANDARD.encode(bytes);
    encoded
        .as_bytes()
        .chunks(60)
        .map(|c| String::from_utf8_lossy(c).into_owned())
        .collect::<Vec<_>>()
        .join("\n")
}

/// The request's URL at another page, for `Link`.
fn page_url(request: &Request, page: usize) -> String {
    let mut url = request.url.clone();
    let kept: Vec<(String, String)> = url
        .query_pairs()
        .filter(|(k, _)| k != "page")
        .map(|(k, v)| (k.into_owned(), v.into_owned()))
        .collect();
    url.query_pairs_mut()
        .clear()
        .extend_pairs(kept)
        .append_pair("page", &page.to_string());
    url.to_string()
}

/// GitHub's `Link` header for a page, `None` on the last one.
pub(super) fn link(request: &Request, page: &Paged) -> Option<String> {
    (page.page < page.pages).then(|| {
        format!(
            "<{}>; rel=\"next\", <{}>; rel=\"last\"",
            page_url(request, page.page + 1),
            page_url(request, page.pages)
        )
    })
}

/// A page of `items` with GitHub's `Link` header (no total).
pub(super) fn github_page(items: Vec<Value>, request: &Request) -> ResponseTemplate {
    let page = paged(items, request, 30);
    let response = ResponseTemplate::new(200).set_body_json(&page.items);
    match link(request, &page) {
        Some(link) => response.insert_header("link", link.as_str()),
        None => response,
    }
}

fn github_user(user: &PlatformUser) -> Value {
    json!({
        "login": user.username, "id": user.id.parse::<i64>().unwrap_or_default(),
        "avatar_url": user.avatar_url, "html_url": user.web_url, "type": "User", "site_admin": false,
    })
}

fn github_pull(full_name: &str, mr: &MrFixture) -> Value {
    let open = mr.state == MrState::Opened;
    json!({
        "id": 90_000 + mr.iid, "number": mr.iid, "title": mr.title, "body": mr.description,
        "state": if open { "open" } else { "closed" },
        "merged_at": (mr.state == MrState::Merged).then_some(mr.updated_at),
        "closed_at": (!open).then_some(mr.updated_at),
        "html_url": format!("https://github.example.com/{full_name}/pull/{}", mr.iid),
        "head": { "ref": mr.source_branch, "sha": mr.head_sha, "label": format!("org:{}", mr.source_branch) },
        "base": { "ref": mr.target_branch, "sha": mr.base_sha, "label": format!("org:{}", mr.target_branch) },
        "user": github_user(&mr.author), "draft": mr.draft,
        "created_at": mr.created_at, "updated_at": mr.updated_at,
    })
}

/// A file as `/pulls/{n}/files` and `/compare` list it (no `patch` without one).
fn github_file(file: &FileDiff) -> Value {
    let status = match file.change_type {
        ChangeType::New => "added",
        ChangeType::Deleted => "removed",
        ChangeType::Renamed => "renamed",
        ChangeType::Modified => "modified",
    };
    let mut json = json!({ "sha": "0", "filename": file.new_path, "status": status, "additions": 0, "deletions": 0, "changes": 0 });
    if let Some(old) = &file.old_path {
        json["previous_filename"] = json!(old);
    }
    if let Some(patch) = &file.diff {
        json["patch"] = json!(patch);
    }
    json
}

/// A pull request list as the API filters it: `state` (open by default), sorted by
/// `sort` (created by default) in `direction` (desc by default).
fn list_pulls(full_name: &str, mrs: &[MrFixture], request: &Request) -> ResponseTemplate {
    let state = query_value(request, "state").unwrap_or_else(|| "open".to_owned());
    let mut listed: Vec<&MrFixture> = mrs
        .iter()
        .filter(|m| state == "all" || (state == "open") == (m.state == MrState::Opened))
        .collect();
    if query_value(request, "sort").as_deref() == Some("updated") {
        listed.sort_by_key(|m| Reverse(m.updated_at));
    } else {
        listed.sort_by_key(|m| Reverse(m.created_at));
    }
    if query_value(request, "direction").as_deref() == Some("asc") {
        listed.reverse();
    }
    let listed = listed.into_iter().map(|m| github_pull(full_name, m));
    FakeGithub::page_of(listed.collect(), request)
}

fn strings(value: &Value) -> Vec<String> {
    value
        .as_array()
        .map(|v| {
            v.iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default()
}

#[async_trait]
impl HostedFake for FakeGithub {
    /// `/user/repos` over every added repository, by full name.
    async fn serve_lists(&self) {
        let by_name = |repos: &mut Vec<Value>| {
            repos.sort_by(|a, b| a["full_name"].as_str().cmp(&b["full_name"].as_str()));
        };
        self.serve_projects("/api/v3/user/repos", by_name).await;
    }

    fn hosted(&self) -> &Shared {
        &self.hosted
    }

    fn auth(&self) -> (&'static str, String) {
        ("authorization", format!("Bearer {}", self.token))
    }

    /// For the server's token or an installation token that reaches the repository
    /// (see `access`), rather than [`HostedFake::auth`]'s one header.
    async fn serve(
        &self,
        verb: &str,
        route: impl Match + 'static,
        respond: impl Respond + 'static,
    ) {
        Mock::given(method(verb))
            .and(route)
            .and(self.credentials().matching(|a| *a == Access::Granted))
            .respond_with(respond)
            .mount(&self.server)
            .await;
    }

    fn page_of(items: Vec<Value>, request: &Request) -> ResponseTemplate {
        github_page(items, request)
    }

    fn not_found() -> ResponseTemplate {
        ResponseTemplate::new(404).set_body_json(json!({
            "message": "Not Found", "documentation_url": "https://docs.github.com/rest", "status": "404",
        }))
    }

    /// The secret masked, as GitHub does.
    fn hook(id: u64, _repo: &str, body: &Value) -> Value {
        json!({
            "type": "Repository", "id": id, "name": "web", "active": true, "events": body["events"],
            "config": { "url": body["config"]["url"], "content_type": "json", "insecure_ssl": "0", "secret": "********" },
        })
    }
}

#[async_trait]
impl FakeServer for FakeGithub {
    /// Who [`FakeGithub::start`] says the token belongs to (classic-token scopes).
    fn account(&self) -> ServerAccount<'_> {
        let owner = token_owner(
            "42",
            "reviewd-bot",
            "Reviewd Bot",
            &["repo", "admin:repo_hook"],
        );
        ServerAccount {
            platform_type: PlatformType::Github,
            server: &self.server,
            token: &self.token,
            owner,
        }
    }

    /// Puts a repository on the server (`full_path` is `owner/name`) with the next
    /// free id: the repository (and, among the token's, `/user/repos`), its
    /// collaborators, pull requests with files, reviews, comments (replies and
    /// reactions among them) and assignment, and its hooks.
    async fn add_project(&self, fixture: &ProjectFixture) -> ProjectRef {
        let full_name = fixture.full_path.clone();
        let (id, repo) = self.list_project(fixture, github_repo).await;
        let base = format!("/api/v3/repos/{full_name}");
        self.serve_json(path(base.clone()), repo).await;
        let users: Vec<Value> = fixture.members.iter().map(github_user).collect();
        self.serve_list(&format!("{base}/collaborators"), users.clone())
            .await;
        // A collaborator's permission: the fixture's members may push (`write`);
        // anyone else is no collaborator (404, as GitHub answers for some).
        let permission = format!("^{base}/collaborators/([^/]+)/permission$");
        self.serve("GET", path_regex(permission), move |r: &Request| {
            let login = r.url.path().split('/').rev().nth(1).unwrap_or_default();
            match users.iter().find(|u| u["login"] == login) {
                Some(user) => ResponseTemplate::new(200).set_body_json(json!({
                    "permission": "write", "role_name": "write", "user": user,
                })),
                None => ResponseTemplate::new(404).set_body_json(json!({
                    "message": format!("{login} is not a user"), "documentation_url": "https://docs.github.com/rest/collaborators/collaborators#get-repository-permissions-for-a-user",
                })),
            }
        })
        .await;
        let mrs = fixture.merge_requests.clone();
        let name = full_name.clone();
        self.serve("GET", path(format!("{base}/pulls")), move |r: &Request| {
            list_pulls(&name, &mrs, r)
        })
        .await;
        for mr in &fixture.merge_requests {
            self.serve_pull(&full_name, mr).await;
            self.serve_replies(&full_name, mr.iid).await;
            self.serve_repo_files(&full_name, mr).await;
            self.pulls.lock().unwrap().push((full_name.clone(), mr.iid));
        }
        self.serve_comment_edits(&full_name).await;
        self.serve_reactions(&full_name).await;
        self.serve_hooks(&format!("{base}/hooks"), &full_name).await;
        self.serve_gates(&base, &full_name).await;
        ProjectRef {
            id: id.to_string(),
            full_path: full_name,
        }
    }

    /// What `GET /compare/{from}...{to}` answers for the repository.
    async fn add_compare(&self, project: &ProjectRef, from: &str, to: &str, files: &[FileDiff]) {
        let body = json!({
            "status": "ahead", "ahead_by": 1, "behind_by": 0, "total_commits": 1, "commits": [{ "sha": to }],
            "files": files.iter().map(github_file).collect::<Vec<_>>(),
        });
        let route = format!("/api/v3/repos/{}/compare/{from}...{to}", project.full_path);
        self.serve_json(path(route), body).await;
    }

    fn posted(&self, project: &ProjectRef, number: i64) -> Vec<Posted> {
        self.lock().posted(&project.full_path, number)
    }
}

impl FakeGithub {
    /// `GET /contents/{path}?ref=<sha>`: the MR's repository files at its head and
    /// base, as the contents API's JSON with the body in base64 (wrapped as GitHub
    /// wraps it); each commit's recursive git tree, its blobs, and its tarball,
    /// which GitHub serves by a redirect to `codeload` (here `/_codeload/…` on the
    /// same server, answered without the token as codeload's signed links are).
    async fn serve_repo_files(&self, full_name: &str, mr: &MrFixture) {
        let repo = format!("/api/v3/repos/{full_name}");
        for (sha, files) in [
            (&mr.head_sha, &mr.repo_files),
            (&mr.base_sha, &mr.base_files),
        ] {
            for (file, content) in files {
                let route = format!("{repo}/contents/{file}");
                let at = sha.clone();
                let at_commit = move |r: &Request| {
                    r.url.path() == route && query_value(r, "ref").as_deref() == Some(at.as_str())
                };
                let body = json!({
                    "type": "file", "encoding": "base64", "name": file, "path": file,
                    "size": content.len(), "content": wrapped_base64(content.as_bytes()),
                });
                self.serve_json(at_commit, body).await;
                let blob = git_blob_id(content.as_bytes());
                let body = json!({
                    "sha": blob, "size": content.len(), "encoding": "base64",
                    "content": wrapped_base64(content.as_bytes()),
                });
                self.serve_json(path(format!("{repo}/git/blobs/{blob}")), body)
                    .await;
            }
            let mut tree: Vec<Value> = directories(files)
                .into_iter()
                .map(|dir| json!({ "path": dir, "mode": "040000", "type": "tree", "sha": git_blob_id(dir.as_bytes()) }))
                .collect();
            tree.extend(files.iter().map(|(file, content)| {
                json!({ "path": file, "mode": "100644", "type": "blob", "sha": git_blob_id(content.as_bytes()), "size": content.len() })
            }));
            let (route, tree_body) = (
                format!("{repo}/git/trees/{sha}"),
                json!({ "sha": sha, "tree": tree, "truncated": false }),
            );
            let recursive = move |r: &Request| {
                r.url.path() == route && query_value(r, "recursive").as_deref() == Some("1")
            };
            self.serve_json(recursive, tree_body).await;
            let server = self.account().server;
            let codeload = format!("/_codeload/{full_name}/legacy.tar.gz/{sha}");
            let redirect = ResponseTemplate::new(302).insert_header(
                "location",
                format!("{}{codeload}?token=codeload-signed", server.uri()),
            );
            self.serve("GET", path(format!("{repo}/tarball/{sha}")), redirect)
                .await;
            let top = format!(
                "{}-{}",
                full_name.replace('/', "-"),
                &sha[..sha.len().min(7)]
            );
            Mock::given(method("GET"))
                .and(path(codeload))
                .respond_with(
                    ResponseTemplate::new(200)
                        .insert_header("content-type", "application/x-gzip")
                        .set_body_bytes(tar_gz(&top, files)),
                )
                .mount(server)
                .await;
        }
    }

    async fn serve_pull(&self, full_name: &str, mr: &MrFixture) {
        let repo = format!("/api/v3/repos/{full_name}");
        let pull = format!("{repo}/pulls/{}", mr.iid);
        let json = github_pull(full_name, mr);
        self.serve_json(path(pull.clone()), json.clone()).await;
        // `PATCH /pulls/{n}`: the body (`describe`) recorded as posted.
        let (hosted, name, number) = (self.hosted.clone(), full_name.to_owned(), mr.iid);
        let edited = json.clone();
        self.serve("PATCH", path(pull.clone()), move |r: &Request| {
            let body = body_json(r);
            let Some(text) = body["body"].as_str() else {
                return ResponseTemplate::new(422)
                    .set_body_json(json!({ "message": "Validation Failed" }));
            };
            let posted = Posted::Description {
                body: text.to_owned(),
            };
            hosted.lock().unwrap().post(&name, number, posted);
            let mut answer = edited.clone();
            answer["body"] = json!(text);
            ResponseTemplate::new(200).set_body_json(answer)
        })
        .await;
        let files: Vec<Value> = mr.files.iter().map(github_file).collect();
        self.serve_list(&format!("{pull}/files"), files).await;
        let (hosted, name, fixture) = (self.hosted.clone(), full_name.to_owned(), mr.clone());
        let (app, authors) = (self.app.clone(), self.authors.clone());
        self.serve(
            "POST",
            path(format!("{pull}/reviews")),
            move |r: &Request| {
                let posting = Posting {
                    hosted: &hosted,
                    authors: &authors,
                    full_name: &name,
                    bot: bot_of(&app, r),
                };
                review(&posting, &fixture, &body_json(r))
            },
        )
        .await;
        let (hosted, name, number) = (self.hosted.clone(), full_name.to_owned(), mr.iid);
        let (app, authors) = (self.app.clone(), self.authors.clone());
        self.serve(
            "POST",
            path(format!("{repo}/issues/{number}/comments")),
            move |r: &Request| {
                let posting = Posting {
                    hosted: &hosted,
                    authors: &authors,
                    full_name: &name,
                    bot: bot_of(&app, r),
                };
                comment(&posting, number, &body_json(r))
            },
        )
        .await;
        for (route, line) in [
            (format!("{pull}/comments"), true),
            (format!("{repo}/issues/{number}/comments"), false),
        ] {
            let (hosted, name) = (self.hosted.clone(), full_name.to_owned());
            let authors = self.authors.clone();
            self.serve("GET", path(route), move |r: &Request| {
                let comments = hosted.lock().unwrap().comments_on(&name, number);
                let authors = authors.lock().unwrap();
                let listed = comments
                    .iter()
                    .filter(|c| c.anchor.is_some() == line)
                    .map(|c| github_comment(&name, c, &authors));
                Self::page_of(listed.collect(), r)
            })
            .await;
        }
        let (hosted, name) = (self.hosted.clone(), full_name.to_owned());
        self.serve(
            "POST",
            path(format!("{repo}/issues/{number}/assignees")),
            move |r: &Request| {
                let posted = Posted::Assign {
                    assignee_ids: strings(&body_json(r)["assignees"]),
                    reviewer_ids: Vec::new(),
                };
                hosted.lock().unwrap().post(&name, number, posted);
                ResponseTemplate::new(201)
                    .set_body_json(json!({ "number": number, "state": "open" }))
            },
        )
        .await;
        let (hosted, name) = (self.hosted.clone(), full_name.to_owned());
        self.serve(
            "POST",
            path(format!("{pull}/requested_reviewers")),
            move |r: &Request| {
                let posted = Posted::Assign {
                    assignee_ids: Vec::new(),
                    reviewer_ids: strings(&body_json(r)["reviewers"]),
                };
                hosted.lock().unwrap().post(&name, number, posted);
                ResponseTemplate::new(201).set_body_json(json.clone())
            },
        )
        .await;
    }

    /// `PATCH /issues/comments/{id}`: comment ids are the repository's, not the PR's.
    async fn serve_comment_edits(&self, full_name: &str) {
        let (hosted, name) = (self.hosted.clone(), full_name.to_owned());
        let authors = self.authors.clone();
        let route = format!("^/api/v3/repos/{full_name}/issues/comments/\\d+$");
        self.serve("PATCH", path_regex(route), move |r: &Request| {
            edit_comment(&hosted, &authors, &name, r)
        })
        .await;
    }
}

/// A line number of a review comment's JSON (0 when absent or not one).
fn line_field(comment: &Value, key: &str) -> u32 {
    u32::try_from(comment[key].as_u64().unwrap_or_default()).unwrap_or_default()
}

/// Where a posting route keeps what it accepts, and who posts it.
struct Posting<'a> {
    hosted: &'a Shared,
    authors: &'a Authors,
    full_name: &'a str,
    /// The App's bot, for an installation token; `None` for the token's owner.
    bot: Option<String>,
}

impl Posting<'_> {
    /// Records who wrote comment `id` (nothing to record for the token's owner).
    fn written(&self, id: u64) {
        if let Some(bot) = &self.bot {
            self.authors.lock().unwrap().insert(id, bot.clone());
        }
    }

    /// The user the comments posted show.
    fn user(&self) -> Value {
        self.bot.as_deref().map_or_else(bot_user, user_named)
    }
}

/// `POST /reviews`: one review holds every comment, and GitHub refuses the whole
/// review (422) when it cannot place one of them; a multi-line comment
/// (`start_line` to `line`) needs `start_line` before `line`, both in one hunk.
fn review(posting: &Posting<'_>, mr: &MrFixture, body: &Value) -> ResponseTemplate {
    let full_name = posting.full_name;
    // The published description: `body` is required with REQUEST_CHANGES and COMMENT.
    let event = body["event"].as_str().unwrap_or_default();
    let text = body["body"].as_str().unwrap_or_default();
    if matches!(event, "COMMENT" | "REQUEST_CHANGES") && text.trim().is_empty() {
        return ResponseTemplate::new(422).set_body_json(json!({
            "message": "Unprocessable Entity",
            "errors": [format!("Body is required when the event is {event}")],
            "documentation_url": "https://docs.github.com/rest/pulls/reviews#create-a-review-for-a-pull-request",
            "status": "422",
        }));
    }
    let comments: Vec<(InlineComment, Option<u32>, &str)> = body["comments"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|c| {
            let comment = InlineComment {
                file_path: c["path"].as_str().unwrap_or_default().to_owned(),
                old_path: None,
                line: line_field(c, "line"),
                body: c["body"].as_str().unwrap_or_default().to_owned(),
                // GitHub has no field for one: a suggestion is a block in the body.
                suggestion: None,
            };
            let start = c["start_line"]
                .as_u64()
                .map(|_| line_field(c, "start_line"));
            (comment, start, c["side"].as_str().unwrap_or("RIGHT"))
        })
        .collect();
    let placed = |(c, start, _): &(InlineComment, Option<u32>, &str)| {
        mr.takes_comment(PlatformType::Github, c)
            && start.is_none_or(|s| s < c.line && mr.takes_range(&c.file_path, s, c.line))
    };
    if !comments.iter().all(placed) {
        return ResponseTemplate::new(422).set_body_json(json!({
            "message": "Unprocessable Entity", "errors": ["Line could not be resolved"],
            "documentation_url": "https://docs.github.com/rest/pulls/reviews", "status": "422",
        }));
    }
    let head_sha = body["commit_id"].as_str().unwrap_or_default();
    let mut hosted = posting.hosted.lock().unwrap();
    let review_id = hosted.next_id();
    for (comment, start, side) in comments {
        let anchor = json!({
            "pull_request_review_id": review_id, "path": comment.file_path,
            "line": comment.line, "original_line": comment.line, "side": side,
            "start_line": start, "original_start_line": start,
            "start_side": start.map(|_| side),
            "commit_id": head_sha, "original_commit_id": head_sha, "subject_type": "line",
        });
        let posted = hosted.line_comment(full_name, mr.iid, comment, head_sha, anchor);
        posting.written(posted.id);
    }
    ResponseTemplate::new(200).set_body_json(json!({
        "id": review_id, "node_id": format!("PRR_{review_id}"), "state": "COMMENTED",
        "body": body["body"], "commit_id": head_sha, "user": posting.user(),
        "submitted_at": "2026-11-22T00:00:00Z",
    }))
}

/// `POST /issues/{n}/comments`: a general comment.
fn comment(posting: &Posting<'_>, number: i64, body: &Value) -> ResponseTemplate {
    let text = body["body"].as_str().unwrap_or_default();
    let full_name = posting.full_name;
    let posted = posting
        .hosted
        .lock()
        .unwrap()
        .comment(full_name, number, text);
    posting.written(posted.id);
    let authors = posting.authors.lock().unwrap();
    ResponseTemplate::new(201).set_body_json(github_comment(full_name, &posted, &authors))
}

/// `PATCH /issues/comments/{id}`: 404 for a comment the repository does not have
/// among its issue comments (review comments are edited elsewhere).
fn edit_comment(
    hosted: &Shared,
    authors: &Authors,
    full_name: &str,
    request: &Request,
) -> ResponseTemplate {
    let scope = EditScope::IssueComments;
    let edited = hosted
        .lock()
        .unwrap()
        .edit_comment(full_name, &scope, request);
    match edited {
        Some(edited) => {
            let authors = authors.lock().unwrap();
            ResponseTemplate::new(200).set_body_json(github_comment(full_name, &edited, &authors))
        }
        None => FakeGithub::not_found(),
    }
}

//! What the fake GitLab and GitHub have in common: the projects put on them and what
//! was posted since, kept by project (GitLab's numeric id, GitHub's `owner/name`) and
//! merge request number; reading requests; and mounting routes for the server's
//! token, hooks among them. The platforms differ in routes, JSON shapes and headers,
//! which each fake supplies through [`HostedFake`].

use crate::contract::hosting::FakeServer;
use crate::fakes::hosting::{Posted, ProjectFixture};
use async_trait::async_trait;
use chrono::{DateTime, Duration, TimeZone, Utc};
use reviewd_domain::model::TokenIdentity;
use reviewd_domain::model::diff::InlineComment;
use serde_json::{Value, json};
use std::sync::{Arc, Mutex, MutexGuard};
use wiremock::matchers::{header, method, path, path_regex};
use wiremock::{Match, Mock, Request, Respond, ResponseTemplate};

pub(crate) struct Hosted {
    /// Projects as the platform lists them.
    pub projects: Vec<Value>,
    /// The instance's users (GitLab's `/users`).
    pub users: Vec<Value>,
    posts: Vec<(String, i64, Posted)>,
    /// Every comment posted, line and general, oldest first, as it reads now: what
    /// the list routes serve, with the ids the posting routes answered.
    comments: Vec<HostedComment>,
    hooks: Vec<(String, Value)>,
    /// Commit statuses and check runs as received: (project, commit, body).
    gates: Vec<(String, String, Value)>,
    last_id: u64,
}

pub(crate) type Shared = Arc<Mutex<Hosted>>;

/// A comment on a merge request as the server keeps it.
#[derive(Debug, Clone)]
pub(crate) struct HostedComment {
    pub project: String,
    pub number: i64,
    /// GitLab's note id, GitHub's comment id.
    pub id: u64,
    /// The platform's fields placing a line comment (GitLab's `position`, GitHub's
    /// `path`, `line`, `side`, `commit_id`, `pull_request_review_id`), merged into
    /// the comment as listed; `None` for a general comment.
    pub anchor: Option<Value>,
    /// The current text, edits applied.
    pub body: String,
    /// Who wrote it; `None` for the token's owner (reviewd).
    pub author: Option<String>,
    /// The comment whose thread this one answers (GitLab: the discussion's first
    /// note; GitHub: `in_reply_to_id`).
    pub in_reply_to: Option<u64>,
    /// Award emoji (GitLab) or reactions (GitHub) on it: id, name, user.
    pub reactions: Vec<(u64, String, String)>,
    /// Set on a thread's first comment when the thread is resolved: by whom.
    pub resolved_by: Option<String>,
}

impl HostedComment {
    /// When it was posted: ids grow with time, a second apart, so listing by time
    /// and by id agree.
    pub fn created_at(&self) -> DateTime<Utc> {
        let epoch = Utc.with_ymd_and_hms(2026, 11, 22, 0, 0, 0).single();
        epoch.unwrap_or_default() + Duration::seconds(i64::try_from(self.id).unwrap_or_default())
    }
}

/// Which comments an edit route reaches.
pub(crate) enum EditScope {
    /// GitLab's `/merge_requests/:iid/notes/:id`: any note of that merge request.
    MergeRequest(i64),
    /// GitHub's `/issues/comments/:id`: the repository's general (issue) comments;
    /// review comments have routes of their own.
    IssueComments,
}

impl Hosted {
    /// Nothing hosted yet; ids handed out start after `last_id`, clear of the ones a
    /// fake's fixed lists serve.
    pub fn shared(last_id: u64) -> Shared {
        Arc::new(Mutex::new(Self {
            projects: Vec::new(),
            users: Vec::new(),
            posts: Vec::new(),
            comments: Vec::new(),
            hooks: Vec::new(),
            gates: Vec::new(),
            last_id,
        }))
    }

    /// Records a commit status or check run posted for `sha`.
    pub fn gate(&mut self, project: &str, sha: &str, body: Value) {
        self.gates.push((project.to_owned(), sha.to_owned(), body));
    }

    /// The statuses and check runs posted for `sha`, oldest first, as sent.
    pub fn gates(&self, sha: &str) -> Vec<Value> {
        self.gates
            .iter()
            .filter(|(_, s, _)| s == sha)
            .map(|(_, _, body)| body.clone())
            .collect()
    }

    pub fn next_id(&mut self) -> u64 {
        self.last_id += 1;
        self.last_id
    }

    pub fn post(&mut self, project: &str, number: i64, posted: Posted) {
        self.posts.push((project.to_owned(), number, posted));
    }

    /// What was accepted on a merge request, oldest first.
    pub fn posted(&self, project: &str, number: i64) -> Vec<Posted> {
        self.posts
            .iter()
            .filter(|(p, n, _)| p == project && *n == number)
            .map(|(_, _, posted)| posted.clone())
            .collect()
    }

    /// Records a general comment on a merge request.
    pub fn comment(&mut self, project: &str, number: i64, body: &str) -> HostedComment {
        let id = self.next_id();
        let posted = Posted::Comment {
            id: id.to_string(),
            body: body.to_owned(),
        };
        self.post(project, number, posted);
        self.keep(project, number, id, None, body)
    }

    /// Records a line comment on a merge request, placed at `head_sha` and by
    /// `anchor` (see [`HostedComment::anchor`]).
    pub fn line_comment(
        &mut self,
        project: &str,
        number: i64,
        comment: InlineComment,
        head_sha: &str,
        anchor: Value,
    ) -> HostedComment {
        let id = self.next_id();
        let body = comment.body.clone();
        let posted = Posted::Inline {
            comment,
            head_sha: head_sha.to_owned(),
        };
        self.post(project, number, posted);
        self.keep(project, number, id, Some(anchor), &body)
    }

    fn keep(
        &mut self,
        project: &str,
        number: i64,
        id: u64,
        anchor: Option<Value>,
        body: &str,
    ) -> HostedComment {
        let comment = HostedComment {
            project: project.to_owned(),
            number,
            id,
            anchor,
            body: body.to_owned(),
            author: None,
            in_reply_to: None,
            reactions: Vec::new(),
            resolved_by: None,
        };
        self.comments.push(comment.clone());
        comment
    }

    /// A reply by `user` in the thread of comment `to` (the thread's first comment
    /// or any reply in it); `None` for an unknown comment. Replies answer the
    /// thread's first comment and share its anchor, as both platforms list them.
    pub fn reply(
        &mut self,
        project: &str,
        to: u64,
        body: &str,
        user: &str,
    ) -> Option<HostedComment> {
        let parent = self.find(project, to)?.clone();
        let root = parent.in_reply_to.unwrap_or(parent.id);
        let id = self.next_id();
        let mut reply = self.keep(project, parent.number, id, parent.anchor.clone(), body);
        reply.author = Some(user.to_owned());
        reply.in_reply_to = Some(root);
        if let Some(kept) = self.comments.last_mut() {
            kept.clone_from(&reply);
        }
        Some(reply)
    }

    /// `user` reacts to comment `id` with `name` (once per user and name, as
    /// both platforms keep them); the reaction's id, `None` for an unknown comment.
    pub fn react(&mut self, project: &str, id: u64, name: &str, user: &str) -> Option<u64> {
        self.find(project, id)?;
        let reaction_id = self.next_id();
        let comment = self.find_mut(project, id)?;
        if let Some((existing, _, _)) = comment
            .reactions
            .iter()
            .find(|(_, n, u)| n == name && u == user)
        {
            return Some(*existing);
        }
        comment
            .reactions
            .push((reaction_id, name.to_owned(), user.to_owned()));
        Some(reaction_id)
    }

    /// Takes reaction `reaction_id` back from comment `id`; whether it was there.
    pub fn unreact(&mut self, project: &str, id: u64, reaction_id: u64) -> bool {
        self.find_mut(project, id).is_some_and(|c| {
            let before = c.reactions.len();
            c.reactions.retain(|(r, _, _)| *r != reaction_id);
            c.reactions.len() != before
        })
    }

    /// Resolves (`Some(user)`) or reopens (`None`) the thread of comment `id`;
    /// whether the comment exists.
    pub fn resolve(&mut self, project: &str, id: u64, by: Option<&str>) -> bool {
        let root = match self.find(project, id) {
            Some(c) => c.in_reply_to.unwrap_or(c.id),
            None => return false,
        };
        self.find_mut(project, root)
            .map(|c| c.resolved_by = by.map(str::to_owned))
            .is_some()
    }

    /// Comment `id` of the project, as it reads now.
    pub fn find(&self, project: &str, id: u64) -> Option<&HostedComment> {
        self.comments
            .iter()
            .find(|c| c.project == project && c.id == id)
    }

    fn find_mut(&mut self, project: &str, id: u64) -> Option<&mut HostedComment> {
        self.comments
            .iter_mut()
            .find(|c| c.project == project && c.id == id)
    }

    /// The comments on a merge request as they read now, oldest first.
    pub fn comments_on(&self, project: &str, number: i64) -> Vec<HostedComment> {
        self.comments
            .iter()
            .filter(|c| c.project == project && c.number == number)
            .cloned()
            .collect()
    }

    /// Applies the edit `request` makes to the comment its route ends in, if `scope`
    /// of the project reaches it: the comment as it reads now; `None` for a comment
    /// out of reach.
    pub fn edit_comment(
        &mut self,
        project: &str,
        scope: &EditScope,
        request: &Request,
    ) -> Option<HostedComment> {
        let id = trailing_id(request)?;
        let reached = |c: &HostedComment| match scope {
            EditScope::MergeRequest(number) => c.number == *number,
            EditScope::IssueComments => c.anchor.is_none(),
        };
        let comment = self
            .comments
            .iter_mut()
            .find(|c| c.project == project && c.id == id && reached(c))?;
        body_json(request)["body"]
            .as_str()
            .unwrap_or_default()
            .clone_into(&mut comment.body);
        let edited = comment.clone();
        let posted = Posted::Edit {
            id: id.to_string(),
            body: edited.body.clone(),
        };
        self.post(project, edited.number, posted);
        Some(edited)
    }
}

/// One query parameter of a request.
pub(crate) fn query_value(request: &Request, key: &str) -> Option<String> {
    request
        .url
        .query_pairs()
        .find(|(k, _)| k == key)
        .map(|(_, v)| v.into_owned())
}

/// One page of a list, as a request asked for it.
pub(crate) struct Paged {
    pub items: Vec<Value>,
    pub page: usize,
    pub per_page: usize,
    pub pages: usize,
    pub total: usize,
}

/// The page of `items` the request's `page` and `per_page` ask for (the platform's
/// default size without one).
pub(crate) fn paged(items: Vec<Value>, request: &Request, default_per_page: usize) -> Paged {
    let number = |key, default: usize| {
        query_value(request, key)
            .and_then(|v| v.parse().ok())
            .unwrap_or(default)
            .max(1)
    };
    let (page, per_page) = (number("page", 1), number("per_page", default_per_page));
    let total = items.len();
    Paged {
        items: items
            .into_iter()
            .skip((page - 1) * per_page)
            .take(per_page)
            .collect(),
        page,
        per_page,
        pages: total.div_ceil(per_page).max(1),
        total,
    }
}

/// The request's parameters: its JSON body, or else its form body as GitLab reads
/// one (`position[new_line]=3` nests, `assignee_ids[]=3` lists), every value a
/// string; `Null` for neither.
pub(crate) fn body_json(request: &Request) -> Value {
    if let Ok(json) = serde_json::from_slice(&request.body) {
        return json;
    }
    let mut fields = serde_json::Map::new();
    for (key, value) in url::form_urlencoded::parse(&request.body) {
        insert_form_field(&mut fields, &key, value.into_owned());
    }
    if fields.is_empty() {
        Value::Null
    } else {
        Value::Object(fields)
    }
}

/// Puts one `a[b][]=v` form field into `fields`.
fn insert_form_field(fields: &mut serde_json::Map<String, Value>, key: &str, value: String) {
    let (name, rest) = key.split_once('[').unwrap_or((key, ""));
    let nested: Vec<&str> = if rest.is_empty() {
        Vec::new()
    } else {
        rest.split('[').map(|k| k.trim_end_matches(']')).collect()
    };
    insert_at(fields, name, &nested, value);
}

fn insert_at(
    node: &mut serde_json::Map<String, Value>,
    name: &str,
    nested: &[&str],
    value: String,
) {
    match nested.split_first() {
        None => {
            node.insert(name.to_owned(), Value::String(value));
        }
        Some((&"", _)) => {
            let list = node.entry(name).or_insert_with(|| Value::Array(Vec::new()));
            if let Value::Array(items) = list {
                items.push(Value::String(value));
            }
        }
        Some((next, deeper)) => {
            let child = node
                .entry(name)
                .or_insert_with(|| Value::Object(serde_json::Map::new()));
            if let Value::Object(child) = child {
                insert_at(child, next, deeper, value);
            }
        }
    }
}

/// The id a route ends in (`…/notes/12`).
fn trailing_id(request: &Request) -> Option<u64> {
    request.url.path().rsplit('/').next()?.parse().ok()
}

/// Who a fake server says its token belongs to.
pub(crate) fn token_owner(id: &str, username: &str, name: &str, scopes: &[&str]) -> TokenIdentity {
    TokenIdentity {
        user_id: id.to_owned(),
        username: username.to_owned(),
        name: Some(name.to_owned()),
        scopes: Some(scopes.iter().map(|&s| s.to_owned()).collect()),
    }
}

/// A fake platform server: the shared state and what differs between platforms.
#[async_trait]
pub(crate) trait HostedFake: FakeServer {
    fn hosted(&self) -> &Shared;

    /// The header that carries the server's token, with its value.
    fn auth(&self) -> (&'static str, String);

    /// A page of `items` with the platform's pagination headers.
    fn page_of(items: Vec<Value>, request: &Request) -> ResponseTemplate
    where
        Self: Sized;

    fn not_found() -> ResponseTemplate
    where
        Self: Sized;

    /// A hook as the platform answers its creation from the request `body`.
    fn hook(id: u64, project: &str, body: &Value) -> Value
    where
        Self: Sized;

    /// Mounts the lists over every project put on the server.
    async fn serve_lists(&self);

    fn lock(&self) -> MutexGuard<'_, Hosted> {
        self.hosted().lock().unwrap()
    }

    /// Mounts `respond` for `verb` on `route`, for the known token only.
    async fn serve(
        &self,
        verb: &str,
        route: impl Match + 'static,
        respond: impl Respond + 'static,
    ) {
        let (name, value) = self.auth();
        Mock::given(method(verb))
            .and(route)
            .and(header(name, value.as_str()))
            .respond_with(respond)
            .mount(self.account().server)
            .await;
    }

    /// `GET` on `route` answers `json`.
    async fn serve_json(&self, route: impl Match + 'static, json: Value) {
        let answer = ResponseTemplate::new(200).set_body_json(json);
        self.serve("GET", route, answer).await;
    }

    /// `GET` on `route` answers `items`, a page at a time.
    async fn serve_list(&self, route: &str, items: Vec<Value>)
    where
        Self: Sized + 'static,
    {
        let list = move |r: &Request| Self::page_of(items.clone(), r);
        self.serve("GET", path(route), list).await;
    }

    /// `GET` on `route` lists every project put on the server, sorted by `order`.
    async fn serve_projects(&self, route: &str, order: for<'a> fn(&'a mut Vec<Value>))
    where
        Self: Sized + 'static,
    {
        let hosted = self.hosted().clone();
        let list = move |r: &Request| {
            let mut projects = hosted.lock().unwrap().projects.clone();
            order(&mut projects);
            Self::page_of(projects, r)
        };
        self.serve("GET", path(route), list).await;
    }

    /// Lists the fixture's project, as `shape` has it with the fixture's default
    /// branch, under the next free id, and returns both; the first one mounts the
    /// lists.
    async fn list_project(
        &self,
        fixture: &ProjectFixture,
        shape: for<'a> fn(u64, &'a str) -> Value,
    ) -> (u64, Value) {
        let (id, project, first) = {
            let mut hosted = self.lock();
            let id = hosted.next_id();
            let mut project = shape(id, &fixture.full_path);
            project["default_branch"] = json!(fixture.default_branch);
            hosted.projects.push(project.clone());
            (id, project, hosted.projects.len() == 1)
        };
        if first {
            self.serve_lists().await;
        }
        (id, project)
    }

    /// A project's hooks at `route`: listed, created (as [`HostedFake::hook`]) and
    /// deleted by id (404 for one it does not have).
    async fn serve_hooks(&self, route: &str, project: &str)
    where
        Self: Sized,
    {
        let (hosted, key) = (self.hosted().clone(), project.to_owned());
        self.serve("GET", path(route), move |r: &Request| {
            let hosted = hosted.lock().unwrap();
            let listed = hosted.hooks.iter().filter(|(p, _)| *p == key);
            Self::page_of(listed.map(|(_, h)| h.clone()).collect(), r)
        })
        .await;
        let (hosted, key) = (self.hosted().clone(), project.to_owned());
        self.serve("POST", path(route), move |r: &Request| {
            let mut hosted = hosted.lock().unwrap();
            let hook = Self::hook(hosted.next_id(), &key, &body_json(r));
            hosted.hooks.push((key.clone(), hook.clone()));
            ResponseTemplate::new(201).set_body_json(hook)
        })
        .await;
        let (hosted, key) = (self.hosted().clone(), project.to_owned());
        let one = path_regex(format!("^{route}/\\d+$"));
        self.serve("DELETE", one, move |r: &Request| {
            let id = trailing_id(r);
            let mut hosted = hosted.lock().unwrap();
            let before = hosted.hooks.len();
            hosted
                .hooks
                .retain(|(p, h)| !(*p == key && h["id"].as_u64() == id));
            if hosted.hooks.len() == before {
                return Self::not_found();
            }
            ResponseTemplate::new(204)
        })
        .await;
    }
}

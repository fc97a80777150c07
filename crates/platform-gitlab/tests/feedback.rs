//! Feedback on reviewd's line comments read back from the fake GitLab: award emoji
//! on a discussion's first note, replies in the discussion and its resolution, for
//! the discussions reviewd opened only.
#![expect(
    clippy::unwrap_used,
    reason = "tests: a panic fails the test, with its message"
)]

use reviewd_domain::model::diff::{
    CommentThread, InlineComment, Resolution, ThreadReaction, ThreadReply,
};
use reviewd_domain::model::{AuthType, PlatformConnection, PlatformType, SecretString};
use reviewd_domain::ports::{HostingPlatform, PlatformError, ProjectRef};
use reviewd_domain::review::markers::comment_marker;
use reviewd_http::{HttpClient, RetryPolicy};
use reviewd_platform_gitlab::GitlabPlatform;
use reviewd_testkit::FakeGitlab;
use reviewd_testkit::contract::hosting::FakeServer;
use reviewd_testkit::fakes::hosting::{MrFixture, ProjectFixture};
use serde_json::{Value, json};
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

/// `@@ -1,2 +1,3 @@`: line 2 is added.
const DIFF: &str = "@@ -1,2 +1,3 @@\n a\n+b\n c\n";

fn platform(fake: &FakeGitlab) -> GitlabPlatform {
    let connection = PlatformConnection {
        platform_type: PlatformType::Gitlab,
        base_url: fake.base_url(),
        auth_type: AuthType::Token,
        token: SecretString::new(&fake.token),
        app: None,
    };
    GitlabPlatform::new(HttpClient::new(RetryPolicy::fast()).unwrap(), &connection)
}

fn line(path: &str, body: &str) -> InlineComment {
    InlineComment {
        file_path: path.to_owned(),
        old_path: None,
        line: 2,
        body: body.to_owned(),
        suggestion: None,
    }
}

/// A project with MR 3 over four files, and the adapter.
async fn world() -> (FakeGitlab, GitlabPlatform, ProjectRef, MrFixture) {
    let fake = FakeGitlab::start("glpat-feedback").await;
    let mr = ["a", "b", "c", "d"]
        .into_iter()
        .fold(MrFixture::new(3), |mr, f| {
            mr.file(&format!("src/{f}.rs"), DIFF)
        });
    let project = fake
        .add_project(&ProjectFixture::new("group/feedback").mr(mr.clone()))
        .await;
    let adapter = platform(&fake);
    (fake, adapter, project, mr)
}

/// The note id of the line comment whose body carries `fingerprint`'s marker.
fn note_with(fake: &FakeGitlab, project: &ProjectRef, fingerprint: &str) -> u64 {
    let marker = comment_marker(fingerprint);
    fake.line_comment_ids(&project.id, 3)
        .into_iter()
        .find(|(_, body)| body.contains(&marker))
        .unwrap()
        .0
}

fn reaction(name: &str, username: &str) -> ThreadReaction {
    ThreadReaction {
        name: name.to_owned(),
        username: username.to_owned(),
    }
}

async fn requested_paths(fake: &FakeGitlab) -> Vec<String> {
    fake.requests()
        .await
        .iter()
        .map(|r| r.url.path().to_owned())
        .collect()
}

#[tokio::test]
async fn reviewd_threads_come_back_with_reactions_replies_and_resolution() {
    let (fake, adapter, project, mr) = world().await;
    let bodies = ["aaa", "bbb", "ccc"].map(|f| format!("Check this.\n\n{}", comment_marker(f)));
    let comments: Vec<InlineComment> = bodies
        .iter()
        .zip(["src/a.rs", "src/b.rs", "src/c.rs"])
        .map(|(body, path)| line(path, body))
        .collect();
    let refs = mr.refs(PlatformType::Gitlab);
    adapter
        .post_inline_comments(&project, 3, &refs, &comments)
        .await
        .unwrap();
    // A thread a reader opened, without reviewd's marker, liked.
    let human = fake.start_discussion_as(&project.id, 3, "src/d.rs", 2, "Nice helper!", "erin");
    fake.react_as(&project.id, human, "thumbsup", "erin")
        .unwrap();
    let (a, b, c) = (
        note_with(&fake, &project, "aaa"),
        note_with(&fake, &project, "bbb"),
        note_with(&fake, &project, "ccc"),
    );

    fake.react_as(&project.id, a, "thumbsup", "alice").unwrap();
    fake.react_as(&project.id, a, "thumbsup", "bob").unwrap();
    let withdrawn = fake.react_as(&project.id, a, "thumbsdown", "bob").unwrap();
    assert!(fake.unreact(&project.id, a, withdrawn));
    fake.react_as(&project.id, b, "thumbsdown", "carol")
        .unwrap();
    let reply = fake
        .reply_as(&project.id, b, "Won't fix: this is intended.", "carol")
        .unwrap();
    assert!(fake.resolve_as(&project.id, c, Some("dave")));
    let second = fake
        .reply_as(&project.id, b, "Agreed, leave it.", "bob")
        .unwrap();

    let threads = adapter.comment_threads(&project, 3).await.unwrap();
    assert_eq!(
        threads,
        [
            CommentThread {
                body: bodies[0].clone(),
                reactions: vec![reaction("thumbsup", "alice"), reaction("thumbsup", "bob")],
                replies: Vec::new(),
                resolved: None,
            },
            CommentThread {
                body: bodies[1].clone(),
                reactions: vec![reaction("thumbsdown", "carol")],
                replies: vec![
                    ThreadReply {
                        id: reply.to_string(),
                        body: "Won't fix: this is intended.".to_owned(),
                        username: "carol".to_owned(),
                    },
                    ThreadReply {
                        id: second.to_string(),
                        body: "Agreed, leave it.".to_owned(),
                        username: "bob".to_owned(),
                    },
                ],
                resolved: None,
            },
            CommentThread {
                body: bodies[2].clone(),
                reactions: Vec::new(),
                replies: Vec::new(),
                resolved: Some(Resolution {
                    username: Some("dave".to_owned()),
                }),
            },
        ]
    );
    // The reader's thread was never asked for its award emoji.
    let human_awards = format!("/notes/{human}/award_emoji");
    let paths = requested_paths(&fake).await;
    assert!(
        !paths.iter().any(|p| p.ends_with(&human_awards)),
        "{paths:?}"
    );
    assert!(
        paths
            .iter()
            .any(|p| p.ends_with(&format!("/notes/{a}/award_emoji")))
    );

    // Reopened, the thread reads open again.
    assert!(fake.resolve_as(&project.id, c, None));
    let threads = adapter.comment_threads(&project, 3).await.unwrap();
    assert_eq!(threads[2].resolved, None);
}

#[tokio::test]
async fn a_merge_request_without_reviewd_threads_has_none() {
    let (fake, adapter, project, _) = world().await;
    adapter
        .post_comment(&project, 3, "LGTM <!-- reviewd:summary:x -->")
        .await
        .unwrap();
    assert_eq!(adapter.comment_threads(&project, 3).await.unwrap(), []);
    let paths = requested_paths(&fake).await;
    assert!(
        !paths.iter().any(|p| p.ends_with("/award_emoji")),
        "{paths:?}"
    );
}

#[tokio::test]
async fn an_unknown_merge_request_or_project_is_not_found() {
    let (_fake, adapter, project, _) = world().await;
    assert!(matches!(
        adapter.comment_threads(&project, 99).await,
        Err(PlatformError::NotFound(_))
    ));
    let unknown = ProjectRef {
        id: "987654".to_owned(),
        full_path: "group/missing".to_owned(),
    };
    assert!(matches!(
        adapter.comment_threads(&unknown, 3).await,
        Err(PlatformError::NotFound(_))
    ));
}

/// Anyone who can comment can open a thread whose first note carries a copy of
/// reviewd's marker, then judge it: only the threads the token's user opened are
/// reviewd's, so the copy counts for nothing and the real one keeps its signals.
#[tokio::test]
async fn a_thread_opened_by_someone_else_with_a_copied_marker_is_not_reviewds() {
    let (fake, adapter, project, mr) = world().await;
    let body = format!("Check this.\n\n{}", comment_marker("0000000000000abc"));
    adapter
        .post_inline_comments(
            &project,
            3,
            &mr.refs(PlatformType::Gitlab),
            &[line("src/a.rs", &body)],
        )
        .await
        .unwrap();
    let real = note_with(&fake, &project, "0000000000000abc");
    fake.react_as(&project.id, real, "thumbsup", "alice")
        .unwrap();
    let copy = fake.start_discussion_as(&project.id, 3, "src/b.rs", 2, &body, "mallory");
    fake.react_as(&project.id, copy, "thumbsdown", "mallory")
        .unwrap();
    fake.reply_as(&project.id, copy, "Won't fix.", "mallory")
        .unwrap();
    assert!(fake.resolve_as(&project.id, copy, Some("mallory")));
    let before = fake.requests().await.len();

    let threads = adapter.comment_threads(&project, 3).await.unwrap();

    assert_eq!(
        threads,
        [CommentThread {
            body,
            reactions: vec![reaction("thumbsup", "alice")],
            replies: Vec::new(),
            resolved: None,
        }]
    );
    let paths = requested_paths(&fake).await.split_off(before);
    assert_eq!(
        paths.iter().filter(|p| *p == "/api/v4/user").count(),
        1,
        "who the token is, once: {paths:?}"
    );
    assert!(
        !paths
            .iter()
            .any(|p| p.ends_with(&format!("/notes/{copy}/award_emoji"))),
        "{paths:?}"
    );
    // The fake shows the copy as its author's, and reviewd's note as the token
    // owner's, who `/user` says the token is.
    let http = reqwest::Client::new();
    let base = format!(
        "{}/api/v4/projects/{}/merge_requests/3",
        fake.base_url(),
        project.id
    );
    let (_, me) = send(&fake, http.get(format!("{}/api/v4/user", fake.base_url()))).await;
    let (_, discussions) = send(&fake, http.get(format!("{base}/discussions"))).await;
    let authors: Vec<&str> = discussions
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["notes"][0]["author"]["username"].as_str().unwrap())
        .collect();
    assert_eq!(authors, [me["username"].as_str().unwrap(), "mallory"]);
    assert_eq!(discussions[0]["notes"][0]["author"]["id"], me["id"]);
    let copied = &discussions[1]["notes"];
    assert_eq!(copied[0]["position"]["new_path"], "src/b.rs");
    assert_eq!(
        copied[0]["position"]["head_sha"],
        discussions[0]["notes"][0]["position"]["head_sha"]
    );
    assert_eq!(
        copied[1]["author"]["username"], "mallory",
        "the reply's own author"
    );
}

/// `request` with the fake's token: the status and the JSON answered.
async fn send(fake: &FakeGitlab, request: reqwest::RequestBuilder) -> (u16, Value) {
    let response = request
        .header("PRIVATE-TOKEN", &fake.token)
        .send()
        .await
        .unwrap();
    let status = response.status().as_u16();
    (status, response.json().await.unwrap_or(Value::Null))
}

/// The fake's own routes, in GitLab's shapes, act as the token's owner.
#[tokio::test]
async fn the_fake_serves_award_emoji_replies_and_resolution_as_gitlab() {
    let (fake, adapter, project, mr) = world().await;
    let body = format!("Check this.\n\n{}", comment_marker("aaa"));
    adapter
        .post_inline_comments(
            &project,
            3,
            &mr.refs(PlatformType::Gitlab),
            &[line("src/a.rs", &body)],
        )
        .await
        .unwrap();
    let note = note_with(&fake, &project, "aaa");
    let http = reqwest::Client::new();
    let base = format!(
        "{}/api/v4/projects/{}/merge_requests/3",
        fake.base_url(),
        project.id
    );
    let awards = format!("{base}/notes/{note}/award_emoji");
    let (status, award) = send(&fake, http.post(&awards).json(&json!({ "name": "rocket" }))).await;
    assert_eq!(status, 201, "{award}");
    assert_eq!(award["name"], "rocket");
    assert_eq!(award["user"]["username"], "reviewer-bot");
    assert_eq!(award["user"]["id"], 7);
    assert_eq!(
        (award["awardable_id"].as_u64(), &award["awardable_type"]),
        (Some(note), &json!("Note"))
    );
    let (status, _) = send(&fake, http.post(&awards).json(&json!({ "name": "rocket" }))).await;
    assert_eq!(status, 404, "the same emoji twice");
    let (status, _) = send(&fake, http.post(&awards).json(&json!({}))).await;
    assert_eq!(status, 400);
    let theirs = fake
        .react_as(&project.id, note, "thumbsup", "alice")
        .unwrap();
    let (status, listed) = send(&fake, http.get(&awards)).await;
    assert_eq!(status, 200);
    let names: Vec<(&str, &str)> = listed
        .as_array()
        .unwrap()
        .iter()
        .map(|a| {
            (
                a["name"].as_str().unwrap(),
                a["user"]["username"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(names, [("rocket", "reviewer-bot"), ("thumbsup", "alice")]);
    let (status, _) = send(&fake, http.delete(format!("{awards}/{theirs}"))).await;
    assert_eq!(status, 403, "only its user takes an award back");
    let (status, _) = send(&fake, http.delete(format!("{awards}/{}", award["id"]))).await;
    assert_eq!(status, 204);
    let (status, _) = send(&fake, http.delete(format!("{awards}/{}", award["id"]))).await;
    assert_eq!(status, 404);

    let (_, discussions) = send(&fake, http.get(format!("{base}/discussions"))).await;
    let discussion_id = discussions[0]["id"].as_str().unwrap().to_owned();
    let (status, reply) = send(
        &fake,
        http.post(format!("{base}/discussions/{discussion_id}/notes"))
            .json(&json!({ "body": "Fixed in the next push." })),
    )
    .await;
    assert_eq!(status, 201, "{reply}");
    assert_eq!(reply["type"], "DiffNote");
    assert_eq!(reply["author"]["username"], "reviewer-bot");
    fake.reply_as(&project.id, note, "Thanks!", "alice")
        .unwrap();

    let (status, resolved) = send(
        &fake,
        http.put(format!("{base}/discussions/{discussion_id}"))
            .query(&[("resolved", "true")]),
    )
    .await;
    assert_eq!(status, 200, "{resolved}");
    assert_eq!(resolved["id"], discussion_id.as_str());
    assert_eq!(resolved["individual_note"], false);
    let notes = resolved["notes"].as_array().unwrap();
    let authors: Vec<&str> = notes
        .iter()
        .map(|n| n["author"]["username"].as_str().unwrap())
        .collect();
    assert_eq!(authors, ["reviewer-bot", "reviewer-bot", "alice"]);
    for n in notes {
        assert_eq!(
            (
                &n["resolvable"],
                &n["resolved"],
                &n["resolved_by"]["username"]
            ),
            (&json!(true), &json!(true), &json!("reviewer-bot")),
            "{n}"
        );
        assert_eq!(n["position"]["new_path"], "src/a.rs");
    }
    let (_, reopened) = send(
        &fake,
        http.put(format!("{base}/discussions/{discussion_id}"))
            .query(&[("resolved", "false")]),
    )
    .await;
    assert_eq!(reopened["notes"][0]["resolved"], false);
    assert_eq!(reopened["notes"][0]["resolved_by"], Value::Null);

    // The notes list has the replies, newest first.
    let (_, listed) = send(&fake, http.get(format!("{base}/notes"))).await;
    let bodies: Vec<&str> = listed
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n["body"].as_str().unwrap())
        .collect();
    assert_eq!(
        bodies,
        ["Thanks!", "Fixed in the next push.", body.as_str()]
    );

    let (status, _) = send(
        &fake,
        http.post(format!("{base}/discussions/{:040x}/notes", 424_242))
            .json(&json!({ "body": "x" })),
    )
    .await;
    assert_eq!(status, 404);
    let (status, _) = send(&fake, http.get(format!("{base}/notes/424242/award_emoji"))).await;
    assert_eq!(status, 404);
}

/// GitLab's own JSON, as its API docs show discussions: system notes left out,
/// `resolved_by` null or missing (older GitLab), notes without the resolution
/// fields at all; a thread someone else opened with a copied marker left out.
#[tokio::test]
async fn discussions_in_gitlab_shapes_old_and_new_are_read() {
    let server = MockServer::start().await;
    let marker = comment_marker("f1");
    let author = |username: &str| json!({ "id": 1, "username": username, "name": username, "state": "active" });
    let note = |id: u64, body: &str, username: &str, resolution: Value| {
        let mut note = json!({
            "id": id, "type": "DiffNote", "body": body, "attachment": null,
            "author": author(username), "created_at": "2026-11-22T09:00:00.000Z",
            "updated_at": "2026-11-22T09:00:00.000Z", "system": false, "noteable_id": 3,
            "noteable_type": "MergeRequest", "noteable_iid": 7, "project_id": 42,
            "position": { "base_sha": "b", "start_sha": "s", "head_sha": "h", "old_path": "a.rs",
                "new_path": "a.rs", "position_type": "text", "old_line": null, "new_line": 2 },
        });
        if let Value::Object(fields) = resolution {
            note.as_object_mut().unwrap().extend(fields);
        }
        note
    };
    let discussions = json!([
        {
            // Resolved, by whom GitLab does not say (null), after a system note.
            "id": "6a9c1750b37d513a43987b574953fceb50b03ce7", "individual_note": false,
            "notes": [
                note(1, &format!("first\n{marker}"), "reviewer-bot",
                    json!({ "resolvable": true, "resolved": true, "resolved_by": null })),
                { "id": 2, "type": null, "body": "changed this line in version 2 of the diff",
                  "author": author("dev"), "system": true, "noteable_type": "MergeRequest" },
                note(3, "done", "dev",
                    json!({ "resolvable": true, "resolved": true })),
            ],
        },
        {
            // One note of two resolved: the thread is open.
            "id": "87805b7c09016a7058e91bdbe7b29d1f284a39e6", "individual_note": false,
            "notes": [
                note(4, &format!("second\n{}", comment_marker("f2")), "reviewer-bot",
                    json!({ "resolvable": true, "resolved": true,
                            "resolved_by": author("erin") })),
                note(5, "not yet", "dev", json!({ "resolvable": true, "resolved": false })),
            ],
        },
        {
            // An older GitLab: no resolution fields at all.
            "id": "0e5a0b0b3b8f1a2d3c4e5f60718293a4b5c6d7e8", "individual_note": false,
            "notes": [note(6, &format!("third\n{}", comment_marker("f3")), "reviewer-bot", Value::Null)],
        },
        {
            // Someone else's thread with a copy of the first one's marker.
            "id": "2a3b4c5d6e7f8091a2b3c4d5e6f708192a3b4c5d", "individual_note": false,
            "notes": [note(8, &format!("copy\n{marker}"), "mallory",
                json!({ "resolvable": true, "resolved": true, "resolved_by": author("mallory") }))],
        },
        {
            "id": "1f2e3d4c5b6a79880796a5b4c3d2e1f0a9b8c7d6", "individual_note": true,
            "notes": [{ "id": 7, "type": null, "body": "LGTM", "author": author("dev"),
                        "system": false, "noteable_type": "MergeRequest" }],
        },
    ]);
    Mock::given(method("GET"))
        .and(path("/api/v4/projects/42/merge_requests/7/discussions"))
        .respond_with(ResponseTemplate::new(200).set_body_json(discussions))
        .mount(&server)
        .await;
    for (note_id, awards) in [
        (
            1,
            json!([{ "id": 90, "name": "thumbsup", "user": author("alice"),
                     "created_at": "2026-11-22T10:00:00.000Z", "updated_at": "2026-11-22T10:00:00.000Z",
                     "awardable_id": 1, "awardable_type": "Note" }]),
        ),
        (4, json!([])),
        (6, json!([])),
        // Served, so that only the author check keeps the copy out.
        (
            8,
            json!([{ "id": 91, "name": "thumbsdown", "user": author("mallory"),
                     "created_at": "2026-11-22T10:00:00.000Z", "updated_at": "2026-11-22T10:00:00.000Z",
                     "awardable_id": 8, "awardable_type": "Note" }]),
        ),
    ] {
        Mock::given(method("GET"))
            .and(path(format!(
                "/api/v4/projects/42/merge_requests/7/notes/{note_id}/award_emoji"
            )))
            .respond_with(ResponseTemplate::new(200).set_body_json(awards))
            .mount(&server)
            .await;
    }
    Mock::given(method("GET"))
        .and(path("/api/v4/user"))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({
            "id": 1, "username": "reviewer-bot", "name": "Reviewer Bot", "state": "active",
            "avatar_url": null, "web_url": "https://gitlab.example.com/reviewer-bot",
        })))
        .mount(&server)
        .await;
    let connection = PlatformConnection {
        platform_type: PlatformType::Gitlab,
        base_url: server.uri(),
        auth_type: AuthType::Token,
        token: SecretString::new("tok"),
        app: None,
    };
    let adapter = GitlabPlatform::new(HttpClient::new(RetryPolicy::fast()).unwrap(), &connection);
    let project = ProjectRef {
        id: "42".to_owned(),
        full_path: "group/app".to_owned(),
    };
    let threads = adapter.comment_threads(&project, 7).await.unwrap();
    /// A thread as (first line, who reacted, replies, resolved by).
    type Summary<'a> = (&'a str, Vec<&'a str>, Vec<&'a str>, Option<Option<&'a str>>);
    let summary: Vec<Summary<'_>> = threads
        .iter()
        .map(|t| {
            (
                t.body.lines().next().unwrap(),
                t.reactions.iter().map(|r| r.username.as_str()).collect(),
                t.replies.iter().map(|r| r.body.as_str()).collect(),
                t.resolved.as_ref().map(|r| r.username.as_deref()),
            )
        })
        .collect();
    assert_eq!(
        summary,
        [
            ("first", vec!["alice"], vec!["done"], Some(None)),
            ("second", vec![], vec!["not yet"], None),
            ("third", vec![], vec![], None),
        ]
    );
    assert_eq!(threads[0].replies[0].id, "3");
    assert_eq!(threads[0].replies[0].username, "dev");
}

/// The hooks reviewd registers also send award emoji (GitLab 16.2+).
#[tokio::test]
async fn registered_hooks_ask_for_emoji_events() {
    let (fake, adapter, project, _) = world().await;
    adapter
        .create_webhook(
            &project,
            "https://reviewd.example.com/api/webhook/hostA",
            None,
        )
        .await
        .unwrap();
    let requests = fake.requests().await;
    let created = requests
        .iter()
        .find(|r| r.method.as_str() == "POST" && r.url.path().ends_with("/hooks"))
        .unwrap();
    let body = FakeGitlab::params(created);
    assert_eq!(
        (&body["note_events"], &body["emoji_events"]),
        (&json!(true), &json!(true))
    );
}

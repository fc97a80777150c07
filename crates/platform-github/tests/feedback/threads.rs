//! reviewd's threads with what their readers did, and threads that only copy its marker.

use super::*;

#[tokio::test]
async fn reviewd_threads_come_with_what_their_readers_did() {
    let fake = FakeGithub::start(TOKEN).await;
    let posted = [
        reviewd_comment(2, "00000000000000a1"),
        reviewd_comment(3, "00000000000000b2"),
        reviewd_comment(4, "00000000000000c3"),
    ];
    let (project, ids) = reviewed(&fake, &posted).await;
    let [judged, untouched, withdrawn] = ids[..] else {
        panic!("three comments posted: {ids:?}")
    };
    fake.react_as(REPO, judged, "+1", "alice").unwrap();
    fake.react_as(REPO, judged, "-1", "bob").unwrap();
    let reply = fake
        .reply_as(REPO, judged, "Won't fix: it is intended.", "carol")
        .unwrap();
    assert!(fake.resolve_as(REPO, judged, Some("alice")));
    let taken_back = fake.react_as(REPO, withdrawn, "heart", "dave").unwrap();
    assert!(fake.unreact(REPO, withdrawn, taken_back));
    // A thread a person started, with reactions and a reply of its own.
    let human = fake.comment_as(REPO, 5, "src/lib.rs", 5, "Why a loop here?", "erin");
    fake.react_as(REPO, human, "+1", "alice").unwrap();
    fake.reply_as(REPO, human, "Because.", "frank").unwrap();
    fake.resolve_as(REPO, human, Some("erin"));

    let threads = platform(&fake.base_url())
        .comment_threads(&project, 5)
        .await
        .unwrap();

    let expected = vec![
        CommentThread {
            body: posted[0].body.clone(),
            reactions: vec![reaction("+1", "alice"), reaction("-1", "bob")],
            replies: vec![ThreadReply {
                id: reply.to_string(),
                body: "Won't fix: it is intended.".into(),
                username: "carol".into(),
            }],
            resolved: Some(Resolution {
                username: Some("alice".into()),
            }),
        },
        CommentThread {
            body: posted[1].body.clone(),
            ..CommentThread::default()
        },
        CommentThread {
            body: posted[2].body.clone(),
            ..CommentThread::default()
        },
    ];
    assert_eq!(threads, expected);
    let reactions_read: Vec<String> = requested_paths(&fake)
        .await
        .into_iter()
        .filter(|p| p.ends_with("/reactions"))
        .collect();
    assert_eq!(
        reactions_read,
        vec![format!(
            "/api/v3/repos/{REPO}/pulls/comments/{judged}/reactions"
        )],
        "reactions are read only where the summary counts some, and never for a person's thread"
    );
    assert!(
        !reactions_read
            .iter()
            .any(|p| p.contains(&untouched.to_string()))
    );
}

/// Anyone who can comment can start a thread whose first comment carries a copy
/// of reviewd's marker, then judge it: only the threads the token's user started
/// are reviewd's, so the copy counts for nothing and the real one keeps its
/// signals.
#[tokio::test]
async fn a_thread_started_by_someone_else_with_a_copied_marker_is_not_reviewds() {
    let fake = FakeGithub::start(TOKEN).await;
    let real = reviewd_comment(2, "00000000000000aa");
    let (project, ids) = reviewed(&fake, std::slice::from_ref(&real)).await;
    fake.react_as(REPO, ids[0], "+1", "alice").unwrap();
    let copy = fake.comment_as(REPO, 5, "src/lib.rs", 3, &real.body, "mallory");
    fake.react_as(REPO, copy, "-1", "mallory").unwrap();
    fake.reply_as(REPO, copy, "Won't fix.", "mallory").unwrap();
    assert!(fake.resolve_as(REPO, copy, Some("mallory")));
    let before = fake.requests().await.len();

    let threads = platform(&fake.base_url())
        .comment_threads(&project, 5)
        .await
        .unwrap();

    assert_eq!(
        threads,
        vec![CommentThread {
            body: real.body.clone(),
            reactions: vec![reaction("+1", "alice")],
            ..CommentThread::default()
        }]
    );
    let made = requested_paths(&fake).await.split_off(before);
    assert_eq!(
        made.iter().filter(|p| *p == "/api/v3/user").count(),
        1,
        "who the token is, once: {made:?}"
    );
    assert!(
        !made
            .iter()
            .any(|p| p.contains(&format!("/comments/{copy}/"))),
        "{made:?}"
    );
}

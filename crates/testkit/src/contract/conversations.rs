//! The `ConversationRepository` contract: a comment is recorded once (a redelivery
//! finds the first record), ended once, counted for the rate limits; an MR's
//! controls change and its refusal is noted once. And a task answering a
//! conversation runs beside the MR's review: it neither waits for it nor holds it up.

use super::{Stores, assert_not_found, seed};
use reviewd_domain::model::ProjectId;
use reviewd_domain::model::conversation::{
    Addressed, CommentAuthor, ControlChange, ConversationEnd, ConversationStatus, NewConversation,
    RecentTalk,
};
use reviewd_domain::model::{NewReviewTask, TriggeredBy};
use reviewd_domain::ports::{AttemptStart, TaskInsert};
use std::time::Duration;
use uuid::Uuid;

pub async fn run(s: &Stores) {
    a_comment_is_recorded_once_and_ended_once(s).await;
    recent_talk_is_counted_per_mr_and_per_author(s).await;
    controls_change_and_a_refusal_is_noted_once(s).await;
    an_answer_runs_beside_the_mrs_review(s).await;
}

/// A comment by `author` on MR `mr_iid`, platform id `note`.
#[must_use]
pub fn comment(project: ProjectId, mr_iid: i64, note: &str, author: &str) -> NewConversation {
    NewConversation {
        project_id: project,
        mr_iid,
        note_id: note.into(),
        thread_id: Some("d1".into()),
        author: CommentAuthor {
            id: Some("42".into()),
            username: author.into(),
            is_bot: false,
        },
        body: "/reviewd pause".into(),
        addressed: Addressed::Command,
        command: Some("pause".into()),
    }
}

fn ended(status: ConversationStatus, answer: &str) -> ConversationEnd {
    ConversationEnd {
        status,
        answer: Some(answer.into()),
        answer_note_id: Some("n-9".into()),
        detail: None,
    }
}

async fn a_comment_is_recorded_once_and_ended_once(s: &Stores) {
    let project = seed::project(s).await;
    let (first, created) = s
        .conversations
        .record(comment(project.id, 1, "n-1", "ana"))
        .await
        .unwrap();
    assert!(created);
    assert_eq!(first.status, ConversationStatus::Queued);
    assert_eq!(first.author.username, "ana");
    assert_eq!(first.thread_id.as_deref(), Some("d1"));
    // The same platform comment again (a redelivered webhook): the first record.
    let (again, created) = s
        .conversations
        .record(comment(project.id, 1, "n-1", "ana"))
        .await
        .unwrap();
    assert!(!created, "a comment is recorded once");
    assert_eq!(again.id, first.id);
    // Another project may have a comment of the same id.
    let other = seed::project(s).await;
    let (elsewhere, created) = s
        .conversations
        .record(comment(other.id, 1, "n-1", "ana"))
        .await
        .unwrap();
    assert!(created);
    assert_ne!(elsewhere.id, first.id);
    assert_not_found(
        s.conversations
            .record(comment(ProjectId(Uuid::new_v4()), 1, "n-2", "ana"))
            .await,
    );

    assert!(
        s.conversations
            .finish(first.id, ended(ConversationStatus::Answered, "Paused."))
            .await
            .unwrap()
    );
    assert!(
        !s.conversations
            .finish(first.id, ended(ConversationStatus::Failed, "twice"))
            .await
            .unwrap(),
        "an answer is recorded once"
    );
    let stored = s.conversations.get(first.id).await.unwrap();
    assert_eq!(stored.status, ConversationStatus::Answered);
    assert_eq!(stored.answer.as_deref(), Some("Paused."));
    assert_eq!(stored.answer_note_id.as_deref(), Some("n-9"));
    assert!(stored.answered_at.is_some());
    assert_not_found(s.conversations.get(Uuid::new_v4()).await);
    assert_not_found(
        s.conversations
            .finish(Uuid::new_v4(), ended(ConversationStatus::Answered, "x"))
            .await,
    );
    let listed = s.conversations.for_mr(project.id, 1).await.unwrap();
    assert_eq!(listed.iter().map(|c| c.id).collect::<Vec<_>>(), [first.id]);
    assert!(
        s.conversations
            .for_mr(project.id, 2)
            .await
            .unwrap()
            .is_empty()
    );
}

async fn recent_talk_is_counted_per_mr_and_per_author(s: &Stores) {
    let project = seed::project(s).await;
    let mut ids = Vec::new();
    let mut times = Vec::new();
    for (mr, note, author) in [
        (1, "a", "ana"),
        (1, "b", "bo"),
        (2, "c", "ana"),
        (1, "d", "ana"),
    ] {
        let (c, _) = s
            .conversations
            .record(comment(project.id, mr, note, author))
            .await
            .unwrap();
        ids.push(c.id);
        times.push(c.created_at);
    }
    // The store's own clock names the times (the in-memory one's is a test clock).
    let since = times[0] - chrono::Duration::seconds(1);
    // An ignored one (a bot's, say) counts for nothing.
    s.conversations
        .finish(ids[1], ended(ConversationStatus::Ignored, ""))
        .await
        .unwrap();
    let talk = s
        .conversations
        .recent(project.id, 1, "ana", since, ids[3])
        .await
        .unwrap();
    assert_eq!(
        talk,
        RecentTalk {
            in_mr: 1,
            by_author: 2
        }
    );
    let later = times[3] + chrono::Duration::seconds(1);
    let none = s
        .conversations
        .recent(project.id, 1, "ana", later, ids[3])
        .await
        .unwrap();
    assert_eq!(none, RecentTalk::default());
}

async fn controls_change_and_a_refusal_is_noted_once(s: &Stores) {
    let project = seed::project(s).await;
    let fresh = s.conversations.controls(project.id, 5).await.unwrap();
    assert!(!fresh.paused && !fresh.ignored && fresh.refused_at.is_none());
    let paused = s
        .conversations
        .change_controls(project.id, 5, ControlChange::Pause, "ana")
        .await
        .unwrap();
    assert!(paused.paused && !paused.ignored);
    assert_eq!(paused.changed_by.as_deref(), Some("ana"));
    let resumed = s
        .conversations
        .change_controls(project.id, 5, ControlChange::Resume, "bo")
        .await
        .unwrap();
    assert!(!resumed.paused);
    assert_eq!(resumed.changed_by.as_deref(), Some("bo"));
    s.conversations
        .change_controls(project.id, 5, ControlChange::Ignore, "bo")
        .await
        .unwrap();
    let stored = s.conversations.controls(project.id, 5).await.unwrap();
    assert!(stored.ignored && !stored.paused);
    assert!(
        !s.conversations
            .controls(project.id, 6)
            .await
            .unwrap()
            .ignored,
        "controls are the MR's own"
    );

    assert!(s.conversations.note_refusal(project.id, 7).await.unwrap());
    assert!(!s.conversations.note_refusal(project.id, 7).await.unwrap());
    assert!(s.conversations.note_refusal(project.id, 5).await.unwrap());
    let refused = s.conversations.controls(project.id, 5).await.unwrap();
    assert!(
        refused.refused_at.is_some() && refused.ignored,
        "a refusal keeps the rest"
    );
    assert_not_found(
        s.conversations
            .change_controls(ProjectId(Uuid::new_v4()), 1, ControlChange::Pause, "x")
            .await,
    );
}

async fn an_answer_runs_beside_the_mrs_review(s: &Stores) {
    let project = seed::project(s).await;
    let review = seed::task(s, &project, 9, "h1").await;
    let lease = Duration::from_secs(60);
    assert!(matches!(
        s.tasks.begin_attempt(review.id, "w1", lease).await.unwrap(),
        AttemptStart::Started(_)
    ));
    let (conversation, _) = s
        .conversations
        .record(comment(project.id, 9, "n-answer", "ana"))
        .await
        .unwrap();
    let new = NewReviewTask {
        triggered_by: TriggeredBy::Manual,
        head_sha: None,
        conversation_id: Some(conversation.id),
        full_review: false,
        ..seed::new_task(&project, 9, "h1")
    };
    let TaskInsert::Created(answer) = s.tasks.insert(new.clone()).await.unwrap().0 else {
        panic!("a new task");
    };
    assert_eq!(answer.conversation_id, Some(conversation.id));
    // The same conversation again, while its task is active: that task.
    let TaskInsert::Duplicate(again) = s.tasks.insert(new).await.unwrap().0 else {
        panic!("one active task per conversation");
    };
    assert_eq!(again.id, answer.id);
    // Not held up by the review in progress, and not holding up a second review.
    assert!(matches!(
        s.tasks.begin_attempt(answer.id, "w2", lease).await.unwrap(),
        AttemptStart::Started(_)
    ));
    let stored = s.tasks.get(answer.id).await.unwrap();
    assert_eq!(stored.conversation_id, Some(conversation.id));
    assert_eq!(
        s.tasks.get(review.id).await.unwrap().status,
        reviewd_domain::model::TaskStatus::Processing,
        "the review is not superseded by an answer"
    );
}

//! The task repository contract: one active task per MR head, newer heads
//! superseding queued ones, one live attempt per MR, orphans claimed once, and the
//! list's filters and pages.

use super::{Stores, seed};
use reviewd_domain::PageRequest;
use reviewd_domain::model::{NewReviewTask, TaskStatus, TriggeredBy};
use reviewd_domain::ports::{AttemptStart, RepoError, TaskInsert};
use std::time::Duration;
use uuid::Uuid;

const LEASE: Duration = Duration::from_secs(600);

pub async fn run(s: &Stores) {
    insert_dedups_and_supersedes(s).await;
    insert_needs_the_project(s).await;
    one_live_attempt_per_merge_request(s).await;
    an_exhausted_task_is_given_up_once(s).await;
    superseded_finished_and_unknown_tasks_are_not_runnable(s).await;
    orphans_are_claimed_once(s).await;
    requeue_fail_and_complete(s).await;
    unknown_ids_are_not_found(s).await;
    list_filters_newest_first_and_pages(s).await;
}

async fn insert(s: &Stores, new: NewReviewTask) -> (TaskInsert, u64) {
    s.tasks.insert(new).await.expect("insert a task")
}

async fn status(s: &Stores, id: Uuid) -> TaskStatus {
    s.tasks.get(id).await.expect("get the task").status
}

async fn insert_dedups_and_supersedes(s: &Stores) {
    let project = seed::project(s).await;
    let a = seed::task(s, &project, 1, "aaa").await;
    let other_mr = seed::task(s, &project, 2, "zzz").await;

    let (again, superseded) = insert(s, seed::new_task(&project, 1, "aaa")).await;
    assert!(
        matches!(&again, TaskInsert::Duplicate(t) if t.id == a.id),
        "same head, same task: {again:?}"
    );
    assert_eq!(superseded, 0);

    let (TaskInsert::Created(b), superseded) = insert(s, seed::new_task(&project, 1, "bbb")).await
    else {
        panic!("a new head is a new task")
    };
    assert_eq!(superseded, 1, "the queued task of the older head");
    let a = s.tasks.get(a.id).await.unwrap();
    assert_eq!(a.status, TaskStatus::Superseded);
    assert!(a.completed_at.is_some());
    assert_eq!(
        status(s, other_mr.id).await,
        TaskStatus::Queued,
        "another MR"
    );

    // A superseded task no longer holds its head: the head can be queued again.
    let (back, superseded) = insert(s, seed::new_task(&project, 1, "aaa")).await;
    assert!(matches!(back, TaskInsert::Created(_)), "{back:?}");
    assert_eq!(superseded, 1);
    assert_eq!(status(s, b.id).await, TaskStatus::Superseded);

    // Without a head there is nothing to deduplicate or supersede by.
    let headless = NewReviewTask {
        head_sha: None,
        ..seed::new_task(&project, 3, "")
    };
    for _ in 0..2 {
        let (created, superseded) = insert(s, headless.clone()).await;
        assert!(matches!(created, TaskInsert::Created(_)), "{created:?}");
        assert_eq!(superseded, 0);
    }
}

async fn insert_needs_the_project(s: &Stores) {
    let project = seed::project(s).await;
    let orphan = NewReviewTask {
        project_id: Uuid::new_v4(),
        ..seed::new_task(&project, 1, "aaa")
    };
    assert!(matches!(
        s.tasks.insert(orphan).await,
        Err(RepoError::NotFound)
    ));
}

async fn begin(s: &Stores, id: Uuid, lease: Duration) -> AttemptStart {
    s.tasks
        .begin_attempt(id, lease)
        .await
        .expect("begin an attempt")
}

async fn one_live_attempt_per_merge_request(s: &Stores) {
    let project = seed::project(s).await;
    let a = seed::task(s, &project, 5, "aaa").await;
    let AttemptStart::Started(started) = begin(s, a.id, LEASE).await else {
        panic!("a queued task starts")
    };
    assert_eq!(started.status, TaskStatus::Processing);
    assert_eq!(started.attempts, 1);
    assert!(started.started_at.is_some());

    let (TaskInsert::Created(b), superseded) = insert(s, seed::new_task(&project, 5, "bbb")).await
    else {
        panic!("a new head is a new task")
    };
    assert_eq!(superseded, 0, "a running task is not superseded");
    assert_eq!(begin(s, b.id, LEASE).await, AttemptStart::Busy);
    assert_eq!(
        begin(s, a.id, LEASE).await,
        AttemptStart::Busy,
        "a live attempt is not restarted by a reclaim"
    );
    assert_eq!(
        s.tasks.get(b.id).await.unwrap().attempts,
        0,
        "waiting costs no attempt"
    );

    // Once the running attempt's lease has lapsed, its worker is presumed dead.
    assert!(matches!(
        begin(s, b.id, Duration::ZERO).await,
        AttemptStart::Started(_)
    ));
    s.tasks.complete(b.id, None).await.unwrap();
    s.tasks.complete(a.id, None).await.unwrap();
    assert_eq!(begin(s, a.id, LEASE).await, AttemptStart::NotRunnable);
}

/// A task whose worker died on every attempt is failed, and said to be given up
/// (so its review can be closed), not silently dropped.
async fn an_exhausted_task_is_given_up_once(s: &Stores) {
    let project = seed::project(s).await;
    let (TaskInsert::Created(c), _) = insert(
        s,
        NewReviewTask {
            max_attempts: 1,
            ..seed::new_task(&project, 6, "ccc")
        },
    )
    .await
    else {
        panic!("a new task")
    };
    assert!(matches!(
        begin(s, c.id, LEASE).await,
        AttemptStart::Started(_)
    ));
    let AttemptStart::GaveUp(given_up) = begin(s, c.id, Duration::ZERO).await else {
        panic!("an exhausted task is given up")
    };
    assert_eq!(given_up.id, c.id);
    assert_eq!(given_up.status, TaskStatus::Failed);
    assert!(given_up.error_message.is_some());
    assert_eq!(
        begin(s, c.id, Duration::ZERO).await,
        AttemptStart::NotRunnable,
        "given up once"
    );
    // Failed, it no longer holds its head.
    let (again, _) = insert(s, seed::new_task(&project, 6, "ccc")).await;
    assert!(matches!(again, TaskInsert::Created(_)), "{again:?}");
}

async fn superseded_finished_and_unknown_tasks_are_not_runnable(s: &Stores) {
    let project = seed::project(s).await;
    let old = seed::task(s, &project, 7, "old").await;
    seed::task(s, &project, 7, "new").await;
    assert_eq!(begin(s, old.id, LEASE).await, AttemptStart::NotRunnable);

    let failed = seed::task(s, &project, 8, "aaa").await;
    s.tasks.fail(failed.id, "the MR is gone").await.unwrap();
    assert_eq!(begin(s, failed.id, LEASE).await, AttemptStart::NotRunnable);

    let done = seed::task(s, &project, 9, "aaa").await;
    s.tasks.complete(done.id, None).await.unwrap();
    assert_eq!(begin(s, done.id, LEASE).await, AttemptStart::NotRunnable);

    assert_eq!(
        begin(s, Uuid::new_v4(), LEASE).await,
        AttemptStart::NotRunnable
    );
}

async fn orphans_are_claimed_once(s: &Stores) {
    let project = seed::project(s).await;
    let orphan = seed::task(s, &project, 1, "aaa").await;
    let queued = seed::task(s, &project, 2, "aaa").await;
    s.tasks
        .set_stream_id(queued.id, "1700000000000-0")
        .await
        .unwrap();

    let young = s.tasks.claim_orphans(3600, 100).await.unwrap();
    assert!(!young.contains(&orphan.id), "not old enough yet");

    let claimed = s.tasks.claim_orphans(0, 100).await.unwrap();
    assert!(claimed.contains(&orphan.id));
    assert!(!claimed.contains(&queued.id), "its message is in the queue");
    let again = s.tasks.claim_orphans(0, 100).await.unwrap();
    assert!(!again.contains(&orphan.id), "claimed once");

    // A started task is no orphan, whatever its message.
    let started = seed::task(s, &project, 3, "aaa").await;
    begin(s, started.id, LEASE).await;
    assert!(
        !s.tasks
            .claim_orphans(0, 100)
            .await
            .unwrap()
            .contains(&started.id)
    );

    // At most `limit` at a time; the rest at the next call.
    let mut mine = Vec::new();
    for mr in [4, 5, 6] {
        mine.push(seed::task(s, &project, mr, "aaa").await.id);
    }
    let first = s.tasks.claim_orphans(0, 2).await.unwrap();
    assert_eq!(first.len(), 2);
    let rest = s.tasks.claim_orphans(0, 100).await.unwrap();
    for id in &mine {
        let times = first.iter().chain(&rest).filter(|c| *c == id).count();
        assert_eq!(times, 1, "each orphan claimed exactly once");
    }
}

async fn requeue_fail_and_complete(s: &Stores) {
    let project = seed::project(s).await;
    let task = seed::task(s, &project, 1, "aaa").await;
    begin(s, task.id, LEASE).await;
    s.tasks
        .requeue(task.id, "the platform timed out")
        .await
        .unwrap();
    let requeued = s.tasks.get(task.id).await.unwrap();
    assert_eq!(requeued.status, TaskStatus::Queued);
    assert_eq!(
        requeued.error_message.as_deref(),
        Some("the platform timed out")
    );
    assert_eq!(requeued.attempts, 1, "the attempt counts");
    let (dup, _) = insert(s, seed::new_task(&project, 1, "aaa")).await;
    assert!(
        matches!(&dup, TaskInsert::Duplicate(t) if t.id == task.id),
        "requeued, it still holds its head: {dup:?}"
    );
    let AttemptStart::Started(second) = begin(s, task.id, Duration::ZERO).await else {
        panic!("a requeued task starts again")
    };
    assert_eq!(second.attempts, 2);

    let review = seed::review(s, &project, 1, "aaa").await;
    s.tasks.link_review(task.id, review.id).await.unwrap();
    assert_eq!(
        s.tasks.get(task.id).await.unwrap().review_id,
        Some(review.id)
    );
    s.tasks.complete(task.id, Some(review.id)).await.unwrap();
    let done = s.tasks.get(task.id).await.unwrap();
    assert_eq!(done.status, TaskStatus::Completed);
    assert_eq!(done.review_id, Some(review.id));
    assert_eq!(done.error_message, None);
    assert!(done.completed_at.is_some());

    let failing = seed::task(s, &project, 2, "aaa").await;
    s.tasks.fail(failing.id, "the MR is gone").await.unwrap();
    let failed = s.tasks.get(failing.id).await.unwrap();
    assert_eq!(failed.status, TaskStatus::Failed);
    assert_eq!(failed.error_message.as_deref(), Some("the MR is gone"));
    assert!(failed.completed_at.is_some());
    let (again, _) = insert(s, seed::new_task(&project, 2, "aaa")).await;
    assert!(matches!(again, TaskInsert::Created(_)), "{again:?}");
}

async fn unknown_ids_are_not_found(s: &Stores) {
    let id = Uuid::new_v4();
    let t = &s.tasks;
    assert!(matches!(t.get(id).await, Err(RepoError::NotFound)));
    assert!(matches!(
        t.set_stream_id(id, "1-0").await,
        Err(RepoError::NotFound)
    ));
    assert!(matches!(t.fail(id, "x").await, Err(RepoError::NotFound)));
    assert!(matches!(
        t.complete(id, None).await,
        Err(RepoError::NotFound)
    ));
    assert!(matches!(t.requeue(id, "x").await, Err(RepoError::NotFound)));
    let project = seed::project(s).await;
    let review = seed::review(s, &project, 1, "aaa").await;
    assert!(matches!(
        t.link_review(id, review.id).await,
        Err(RepoError::NotFound)
    ));
}

/// Only this case makes manual tasks, so the manual ones listed are its own.
async fn list_filters_newest_first_and_pages(s: &Stores) {
    let project = seed::project(s).await;
    let mut ids = Vec::new();
    for mr in [1, 2, 3] {
        let new = NewReviewTask {
            triggered_by: TriggeredBy::Manual,
            ..seed::new_task(&project, mr, "aaa")
        };
        let (TaskInsert::Created(task), _) = insert(s, new).await else {
            panic!("a new task")
        };
        ids.push(task.id);
    }
    let [a, b, c] = ids[..] else { unreachable!() };
    s.tasks.fail(c, "x").await.unwrap();
    let list = |status, page, size| async move {
        let page = s
            .tasks
            .list(
                status,
                Some(TriggeredBy::Manual),
                PageRequest::new(page, size, 100),
            )
            .await
            .unwrap();
        (
            page.total,
            page.items.iter().map(|t| t.id).collect::<Vec<_>>(),
        )
    };
    assert_eq!(list(None, 1, 10).await, (3, vec![c, b, a]), "newest first");
    assert_eq!(list(None, 1, 2).await, (3, vec![c, b]));
    assert_eq!(list(None, 2, 2).await, (3, vec![a]));
    assert_eq!(list(Some(TaskStatus::Queued), 1, 10).await, (2, vec![b, a]));
    assert_eq!(list(Some(TaskStatus::Failed), 1, 10).await, (1, vec![c]));
    assert_eq!(list(Some(TaskStatus::Completed), 1, 10).await, (0, vec![]));

    let auto = s
        .tasks
        .list(None, Some(TriggeredBy::Auto), PageRequest::new(1, 100, 100))
        .await
        .unwrap();
    assert!(auto.items.iter().all(|t| !ids.contains(&t.id)));
    assert!(
        auto.items
            .iter()
            .all(|t| t.triggered_by == TriggeredBy::Auto)
    );
    let everything = s
        .tasks
        .list(None, None, PageRequest::new(1, 1, 100))
        .await
        .unwrap();
    assert!(everything.total >= auto.total + 3);

    // A runner holds a and b, and b's result is being concluded (stored apart from
    // `processing`, read as it): the processing filter lists both.
    let runner = seed::runner(s, 100, &[]).await;
    let claimed = s
        .runners
        .claim(&runner.id, 100, Duration::from_secs(600), Duration::ZERO)
        .await
        .unwrap();
    assert!(claimed.iter().any(|t| t.id == a) && claimed.iter().any(|t| t.id == b));
    let nothing = serde_json::json!({});
    s.runners
        .accept_result(b, &runner.id, &nothing, &nothing)
        .await
        .unwrap();
    assert_eq!(status(s, b).await, TaskStatus::Processing);
    assert_eq!(
        list(Some(TaskStatus::Processing), 1, 10).await,
        (2, vec![b, a]),
        "a task being concluded is still processing"
    );
}

//! The task repository contract: one active task per MR head, newer heads
//! superseding queued ones, one live attempt per MR (live while its worker's
//! heartbeat is), attempts fenced by their worker, orphans claimed once, the tasks
//! left to finish, and the list's filters and pages.

use super::{Stores, seed};
use reviewd_domain::PageRequest;
use reviewd_domain::model::ProjectId;
use reviewd_domain::model::{NewReviewTask, Project, ReviewTask, TaskStatus, TriggeredBy};
use reviewd_domain::ports::{AttemptEnd, AttemptStart, RepoError, TaskInsert};
use std::sync::Arc;
use std::time::Duration;
use tokio::task::JoinSet;
use uuid::Uuid;

const LEASE: Duration = Duration::from_secs(600);
/// Two server workers (processes' stable names).
const WORKER: &str = "worker-a";
const OTHER: &str = "worker-b";

pub async fn run(s: &Stores) {
    insert_dedups_and_supersedes(s).await;
    insert_needs_the_project(s).await;
    tasks_queued_at_once(s).await;
    heads_of_one_mr_queued_at_once(s).await;
    a_bad_task_among_others_fails_alone(s).await;
    one_live_attempt_per_merge_request(s).await;
    an_exhausted_task_is_given_up_once(s).await;
    superseded_finished_and_unknown_tasks_are_not_runnable(s).await;
    orphans_are_claimed_once(s).await;
    requeue_fail_and_complete(s).await;
    a_heartbeat_keeps_an_attempt_live(s).await;
    a_worker_resumes_its_own_attempt(s).await;
    only_the_holder_finishes_an_attempt(s).await;
    a_worker_taken_over_changes_nothing(s).await;
    unknown_ids_are_not_found(s).await;
    unfinished_lists_queued_and_worker_held_tasks_in_pages(s).await;
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
        project_id: ProjectId::new_v4(),
        ..seed::new_task(&project, 1, "aaa")
    };
    assert!(matches!(
        s.tasks.insert(orphan).await,
        Err(RepoError::NotFound)
    ));
}

/// Inserts `news` all at once, as the webhooks of one moment (a store may commit
/// them together); the answers in the order of `news`.
async fn insert_at_once(
    s: &Stores,
    news: Vec<NewReviewTask>,
) -> Vec<Result<(TaskInsert, u64), RepoError>> {
    let mut inserts = JoinSet::new();
    for (n, new) in news.into_iter().enumerate() {
        let tasks = Arc::clone(&s.tasks);
        inserts.spawn(async move { (n, tasks.insert(new).await) });
    }
    let mut answers: Vec<_> = inserts.join_all().await;
    answers.sort_by_key(|(n, _)| *n);
    answers.into_iter().map(|(_, answer)| answer).collect()
}

fn task_of(answer: &Result<(TaskInsert, u64), RepoError>) -> (&ReviewTask, bool) {
    match answer {
        Ok((TaskInsert::Created(t), _)) => (t, true),
        Ok((TaskInsert::Duplicate(t), _)) => (t, false),
        Err(e) => panic!("a task of a known project is queued: {e}"),
    }
}

/// Forty MRs at once, with a redelivery of one head among them: each webhook gets
/// its own task back, queued, and the redelivery the same task as the first
/// delivery (one created, one duplicate, whichever ran first).
async fn tasks_queued_at_once(s: &Stores) {
    let project = seed::project(s).await;
    let mut news: Vec<NewReviewTask> = (100..140)
        .map(|mr| seed::new_task(&project, mr, "aaa"))
        .collect();
    news.push(seed::new_task(&project, 100, "aaa"));
    let answers = insert_at_once(s, news).await;

    for (answer, mr) in answers.iter().zip(100..140) {
        let (task, _) = task_of(answer);
        assert_eq!(
            (task.project_id, task.mr_iid),
            (project.id, mr),
            "its own task"
        );
        assert_eq!(status(s, task.id).await, TaskStatus::Queued);
    }
    let (first, first_created) = task_of(&answers[0]);
    let (again, again_created) = task_of(&answers[40]);
    assert_eq!(first.id, again.id, "a redelivery of one head: one task");
    assert!(first_created != again_created, "one created, one duplicate");
    let created = answers.iter().filter(|a| task_of(a).1).count();
    assert_eq!(created, 40, "one task per MR");
}

/// Five heads of one MR and a redelivery of its first head, at once, among other
/// MRs: whatever order a store ran them in, one of the MR's tasks stays queued, every
/// other is superseded, and the answers count each supersede once. (Two heads
/// queued side by side would each miss the other and both stay queued.)
async fn heads_of_one_mr_queued_at_once(s: &Stores) {
    let project = seed::project(s).await;
    let mut news: Vec<NewReviewTask> = Vec::new();
    for (n, head) in ["h1", "h2", "h3", "h4", "h5", "h1"].into_iter().enumerate() {
        news.push(seed::new_task(&project, 300, head));
        news.extend((0..5).map(|m| seed::new_task(&project, 310 + 5 * n as i64 + m, "aaa")));
    }
    let answers = insert_at_once(s, news).await;

    let mut ids = std::collections::BTreeSet::new();
    let mut superseded = 0;
    for answer in &answers {
        let (task, _) = task_of(answer);
        if task.mr_iid == 300 {
            ids.insert(task.id);
            superseded += answer.as_ref().map_or(0, |(_, n)| *n);
        } else {
            assert_eq!(status(s, task.id).await, TaskStatus::Queued, "other MRs");
        }
    }
    let mut queued = 0;
    for id in &ids {
        match status(s, *id).await {
            TaskStatus::Queued => queued += 1,
            TaskStatus::Superseded => {}
            other => panic!("a task of the MR is {other:?}"),
        }
    }
    assert_eq!(
        queued,
        1,
        "one head of the MR queued, of {} tasks",
        ids.len()
    );
    assert_eq!(
        superseded as usize,
        ids.len() - 1,
        "each supersede counted once"
    );
}

/// A task of an unknown project among webhooks of the same moment fails alone:
/// the others are queued.
async fn a_bad_task_among_others_fails_alone(s: &Stores) {
    let project = seed::project(s).await;
    let mut news: Vec<NewReviewTask> = (200..220)
        .map(|mr| seed::new_task(&project, mr, "aaa"))
        .collect();
    news.insert(
        10,
        NewReviewTask {
            project_id: ProjectId::new_v4(),
            ..seed::new_task(&project, 210, "aaa")
        },
    );
    let answers = insert_at_once(s, news).await;
    assert!(
        matches!(answers[10], Err(RepoError::NotFound)),
        "{:?}",
        answers[10]
    );
    let queued = answers
        .iter()
        .enumerate()
        .filter(|(n, _)| *n != 10)
        .map(|(_, answer)| task_of(answer))
        .filter(|(task, created)| *created && task.status == TaskStatus::Queued)
        .count();
    assert_eq!(queued, 20, "the other webhooks' tasks");
}

async fn begin(s: &Stores, id: Uuid, worker: &str, lease: Duration) -> AttemptStart {
    s.tasks
        .begin_attempt(id, worker, lease)
        .await
        .expect("begin an attempt")
}

async fn one_live_attempt_per_merge_request(s: &Stores) {
    let project = seed::project(s).await;
    let a = seed::task(s, &project, 5, "aaa").await;
    let AttemptStart::Started(started) = begin(s, a.id, WORKER, LEASE).await else {
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
    assert_eq!(
        begin(s, b.id, WORKER, LEASE).await,
        AttemptStart::Busy,
        "the MR's other task waits, even for the worker of the live attempt"
    );
    assert_eq!(
        begin(s, a.id, OTHER, LEASE).await,
        AttemptStart::Busy,
        "a live attempt is not restarted by another worker's reclaim"
    );
    assert_eq!(
        s.tasks.get(b.id).await.unwrap().attempts,
        0,
        "waiting costs no attempt"
    );

    // Once the running attempt's lease has lapsed, its worker is presumed dead.
    assert!(matches!(
        begin(s, b.id, WORKER, Duration::ZERO).await,
        AttemptStart::Started(_)
    ));
    s.tasks.complete(b.id, None).await.unwrap();
    s.tasks.complete(a.id, None).await.unwrap();
    assert_eq!(
        begin(s, a.id, WORKER, LEASE).await,
        AttemptStart::NotRunnable
    );
}

/// A task whose worker died on every attempt is failed, and said to be given up
/// (so its review can be closed), not silently dropped.
async fn an_exhausted_task_is_given_up_once(s: &Stores) {
    let project = seed::project(s).await;
    let (TaskInsert::Created(c), _) = insert(
        s,
        NewReviewTask {
            max_attempts: 1,
            conversation_id: None,
            full_review: false,
            ..seed::new_task(&project, 6, "ccc")
        },
    )
    .await
    else {
        panic!("a new task")
    };
    assert!(matches!(
        begin(s, c.id, WORKER, LEASE).await,
        AttemptStart::Started(_)
    ));
    let AttemptStart::GaveUp(given_up) = begin(s, c.id, WORKER, Duration::ZERO).await else {
        panic!("an exhausted task is given up")
    };
    assert_eq!(given_up.id, c.id);
    assert_eq!(given_up.status, TaskStatus::Failed);
    assert!(given_up.error_message.is_some());
    assert_eq!(
        begin(s, c.id, WORKER, Duration::ZERO).await,
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
    assert_eq!(
        begin(s, old.id, WORKER, LEASE).await,
        AttemptStart::NotRunnable
    );

    let failed = seed::task(s, &project, 8, "aaa").await;
    s.tasks.fail(failed.id, "the MR is gone").await.unwrap();
    assert_eq!(
        begin(s, failed.id, WORKER, LEASE).await,
        AttemptStart::NotRunnable
    );

    let done = seed::task(s, &project, 9, "aaa").await;
    s.tasks.complete(done.id, None).await.unwrap();
    assert_eq!(
        begin(s, done.id, WORKER, LEASE).await,
        AttemptStart::NotRunnable
    );

    assert_eq!(
        begin(s, Uuid::new_v4(), WORKER, LEASE).await,
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
    begin(s, started.id, WORKER, LEASE).await;
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
    begin(s, task.id, WORKER, LEASE).await;
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
    let AttemptStart::Started(second) = begin(s, task.id, WORKER, Duration::ZERO).await else {
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

async fn renew(s: &Stores, id: Uuid, worker: &str) -> bool {
    s.tasks
        .renew_attempt(id, worker)
        .await
        .expect("renew an attempt")
}

async fn finish(s: &Stores, id: Uuid, worker: &str, end: AttemptEnd<'_>) -> bool {
    s.tasks
        .finish_attempt(id, worker, end)
        .await
        .expect("finish an attempt")
}

/// A queued task started by `worker`.
async fn started(s: &Stores, project: &Project, mr_iid: i64, worker: &str) -> ReviewTask {
    let task = seed::task(s, project, mr_iid, "aaa").await;
    match begin(s, task.id, worker, LEASE).await {
        AttemptStart::Started(started) => started,
        other => panic!("a queued task starts, got {other:?}"),
    }
}

/// Waits until `at_least` has passed on the store's clock since `since`: real time
/// for a database, readings of a ticking clock in memory. The clock is read from
/// the start of a probe task's attempts, which its worker resumes at each reading.
async fn let_pass(s: &Stores, project: &Project, since: &ReviewTask, at_least: Duration) {
    let (TaskInsert::Created(probe), _) = insert(
        s,
        NewReviewTask {
            max_attempts: i32::MAX,
            conversation_id: None,
            full_review: false,
            ..seed::new_task(project, 999, "probe")
        },
    )
    .await
    else {
        panic!("a new probe task")
    };
    let since = since.started_at.expect("a started attempt");
    let at_least = chrono::Duration::from_std(at_least).expect("a short wait");
    loop {
        let AttemptStart::Started(probe) = begin(s, probe.id, "clock", LEASE).await else {
            panic!("the probe's worker resumes it")
        };
        if probe.started_at.is_some_and(|now| now - since >= at_least) {
            return;
        }
        tokio::time::sleep(Duration::from_millis(1)).await;
    }
}

/// The lease runs from the attempt's last heartbeat, not from its start.
async fn a_heartbeat_keeps_an_attempt_live(s: &Stores) {
    let project = seed::project(s).await;
    let a = started(s, &project, 11, WORKER).await;
    assert_eq!(a.worker_id.as_deref(), Some(WORKER), "held by its worker");
    let (TaskInsert::Created(b), _) = insert(s, seed::new_task(&project, 11, "bbb")).await else {
        panic!("a new head is a new task")
    };
    assert_eq!(begin(s, b.id, OTHER, LEASE).await, AttemptStart::Busy);

    let lease = Duration::from_millis(150);
    let_pass(s, &project, &a, Duration::from_millis(200)).await;
    assert!(renew(s, a.id, WORKER).await, "its worker still holds it");
    assert_eq!(
        begin(s, b.id, OTHER, lease).await,
        AttemptStart::Busy,
        "started longer ago than the lease, renewed since: still live"
    );
    assert_eq!(s.tasks.get(b.id).await.unwrap().attempts, 0);

    // A heartbeat older than the lease: its worker is presumed dead.
    let AttemptStart::Started(b) = begin(s, b.id, OTHER, Duration::ZERO).await else {
        panic!("the MR is free once the heartbeat is older than the lease")
    };
    assert_eq!(b.worker_id.as_deref(), Some(OTHER));
}

/// A worker starting its own live attempt again resumes it (after a restart, or an
/// outcome it failed to record); another worker waits for the lease to pass.
async fn a_worker_resumes_its_own_attempt(s: &Stores) {
    let project = seed::project(s).await;
    let task = started(s, &project, 12, WORKER).await;

    let AttemptStart::Started(resumed) = begin(s, task.id, WORKER, LEASE).await else {
        panic!("its own live attempt is not busy for the worker")
    };
    assert_eq!(resumed.attempts, 2, "a resumed attempt counts");
    assert_eq!(resumed.status, TaskStatus::Processing);
    assert_eq!(resumed.worker_id.as_deref(), Some(WORKER));

    assert_eq!(begin(s, task.id, OTHER, LEASE).await, AttemptStart::Busy);
    let held = s.tasks.get(task.id).await.unwrap();
    assert_eq!(
        (held.attempts, held.worker_id.as_deref()),
        (2, Some(WORKER)),
        "waiting changes nothing"
    );

    let AttemptStart::Started(taken) = begin(s, task.id, OTHER, Duration::ZERO).await else {
        panic!("another worker takes it over once the lease has passed")
    };
    assert_eq!(taken.attempts, 3);
    assert_eq!(taken.worker_id.as_deref(), Some(OTHER));
    assert_eq!(
        begin(s, task.id, WORKER, LEASE).await,
        AttemptStart::Busy,
        "taken over, it is no longer the first worker's own"
    );
}

/// Each end of an attempt by its worker, with the effects of `complete`, `requeue`
/// and `fail`; once it ended, the worker's heartbeats and ends change nothing.
async fn only_the_holder_finishes_an_attempt(s: &Stores) {
    let project = seed::project(s).await;

    let done = started(s, &project, 13, WORKER).await;
    let review = seed::review(s, &project, 13, "aaa").await;
    assert!(
        finish(
            s,
            done.id,
            WORKER,
            AttemptEnd::Completed {
                review_id: Some(review.id)
            }
        )
        .await
    );
    let completed = s.tasks.get(done.id).await.unwrap();
    assert_eq!(completed.status, TaskStatus::Completed);
    assert_eq!(completed.review_id, Some(review.id));
    assert_eq!(completed.error_message, None);
    assert!(completed.completed_at.is_some());
    assert_eq!(
        completed.worker_id.as_deref(),
        Some(WORKER),
        "who did it is kept"
    );
    let (again, _) = insert(s, seed::new_task(&project, 13, "aaa")).await;
    assert!(
        matches!(again, TaskInsert::Created(_)),
        "completed, it no longer holds its head: {again:?}"
    );
    assert!(!renew(s, done.id, WORKER).await, "a finished attempt");
    assert!(
        !finish(s, done.id, WORKER, AttemptEnd::Failed { error: "late" }).await,
        "ended once"
    );
    assert_eq!(status(s, done.id).await, TaskStatus::Completed);

    let failing = started(s, &project, 14, WORKER).await;
    let gone = AttemptEnd::Failed {
        error: "the MR is gone",
    };
    assert!(finish(s, failing.id, WORKER, gone).await);
    let failed = s.tasks.get(failing.id).await.unwrap();
    assert_eq!(failed.status, TaskStatus::Failed);
    assert_eq!(failed.error_message.as_deref(), Some("the MR is gone"));
    assert!(failed.completed_at.is_some());
    let (again, _) = insert(s, seed::new_task(&project, 14, "aaa")).await;
    assert!(
        matches!(again, TaskInsert::Created(_)),
        "failed, it no longer holds its head: {again:?}"
    );

    let retried = started(s, &project, 15, WORKER).await;
    let timeout = AttemptEnd::Requeued {
        error: "the platform timed out",
    };
    assert!(finish(s, retried.id, WORKER, timeout).await);
    let requeued = s.tasks.get(retried.id).await.unwrap();
    assert_eq!(requeued.status, TaskStatus::Queued);
    assert_eq!(
        requeued.error_message.as_deref(),
        Some("the platform timed out")
    );
    assert_eq!(requeued.attempts, 1, "the attempt counts");
    assert_eq!(requeued.worker_id, None, "queued, it is no one's own work");
    let (dup, _) = insert(s, seed::new_task(&project, 15, "aaa")).await;
    assert!(
        matches!(&dup, TaskInsert::Duplicate(t) if t.id == retried.id),
        "requeued, it still holds its head: {dup:?}"
    );
    assert!(
        !renew(s, retried.id, WORKER).await,
        "queued, not processing"
    );
    assert!(!finish(s, retried.id, WORKER, timeout).await);
    let AttemptStart::Started(next) = begin(s, retried.id, OTHER, LEASE).await else {
        panic!("a requeued task starts again, for any worker")
    };
    assert_eq!(next.attempts, 2);

    let unknown = Uuid::new_v4();
    assert!(!renew(s, unknown, WORKER).await);
    assert!(
        !finish(
            s,
            unknown,
            WORKER,
            AttemptEnd::Completed { review_id: None }
        )
        .await
    );
}

/// The frozen replica: a worker silent past its lease is taken over; when it comes
/// back, its heartbeat and its outcome change nothing.
async fn a_worker_taken_over_changes_nothing(s: &Stores) {
    let project = seed::project(s).await;
    let task = started(s, &project, 16, WORKER).await;
    assert!(matches!(
        begin(s, task.id, OTHER, Duration::ZERO).await,
        AttemptStart::Started(_)
    ));

    assert!(!renew(s, task.id, WORKER).await, "taken over");
    assert!(renew(s, task.id, OTHER).await, "the new holder's heartbeat");
    assert!(
        !finish(
            s,
            task.id,
            WORKER,
            AttemptEnd::Requeued {
                error: "interrupted"
            }
        )
        .await
    );
    let held = s.tasks.get(task.id).await.unwrap();
    assert_eq!(held.status, TaskStatus::Processing);
    assert_eq!(held.worker_id.as_deref(), Some(OTHER));
    assert_eq!(held.error_message, None);

    assert!(finish(s, task.id, OTHER, AttemptEnd::Completed { review_id: None }).await);
    assert!(
        !finish(
            s,
            task.id,
            WORKER,
            AttemptEnd::Failed { error: "timed out" }
        )
        .await,
        "the frozen worker's late failure"
    );
    let done = s.tasks.get(task.id).await.unwrap();
    assert_eq!(done.status, TaskStatus::Completed, "not failed after all");
    assert_eq!(done.error_message, None);
    assert_eq!(done.worker_id.as_deref(), Some(OTHER));
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

/// What the workers have yet to finish, page by page in id order: queued tasks and
/// those a worker holds, not finished ones nor those a runner holds.
async fn unfinished_lists_queued_and_worker_held_tasks_in_pages(s: &Stores) {
    let project = seed::project(s).await;
    // First, as a runner claims every queued task it can (earlier cases' too).
    let runners = seed::task(s, &project, 26, "aaa").await;
    let runner = seed::runner(s, 1000, &[]).await;
    let claimed = s
        .runners
        .claim(&runner.id, 1000, LEASE, Duration::ZERO)
        .await
        .unwrap();
    assert!(claimed.iter().any(|t| t.id == runners.id));

    let queued = seed::task(s, &project, 21, "aaa").await;
    let processing = started(s, &project, 22, WORKER).await;
    let completed = started(s, &project, 23, WORKER).await;
    assert!(
        finish(
            s,
            completed.id,
            WORKER,
            AttemptEnd::Completed { review_id: None }
        )
        .await
    );
    let failed = seed::task(s, &project, 24, "aaa").await;
    s.tasks.fail(failed.id, "the MR is gone").await.unwrap();
    let superseded = seed::task(s, &project, 25, "old").await;
    let newer = seed::task(s, &project, 25, "new").await;
    assert_eq!(status(s, superseded.id).await, TaskStatus::Superseded);

    let mut paged: Vec<Uuid> = Vec::new();
    let mut after = None;
    loop {
        let page = s.tasks.unfinished(after, 2).await.unwrap();
        assert!(page.len() <= 2, "at most the limit: {page:?}");
        let Some(last) = page.last() else { break };
        after = Some(*last);
        paged.extend(page);
    }
    let whole = s.tasks.unfinished(None, 10_000).await.unwrap();
    assert_eq!(paged, whole, "the pages, in order, are the whole list");
    assert!(
        whole.windows(2).all(|w| w[0] < w[1]),
        "in id order, each once"
    );
    for id in [queued.id, processing.id, newer.id] {
        assert!(whole.contains(&id), "{id} is unfinished");
    }
    for id in [completed.id, failed.id, superseded.id, runners.id] {
        assert!(!whole.contains(&id), "{id} is not the workers' to finish");
    }
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

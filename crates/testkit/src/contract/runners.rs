//! The runner repository contract: registration keeps counters, claims are atomic
//! and stay within capacity and one attempt per MR, every move of a held task is
//! guarded by its holder, and silent or leaving runners give their tasks back.
//!
//! Each case fails the tasks it made before it returns, so later cases' claims see
//! only their own; and claims wait out a long retry delay unless a case is about
//! it, so nothing given back elsewhere is taken.

use super::{Stores, seed};
use reviewd_domain::model::ReviewId;
use reviewd_domain::model::runner::{
    RunnerAssignment, RunnerOutcome, RunnerPhase, RunnerRegistration, RunnerStatus,
};
use reviewd_domain::model::{NewReviewTask, Project, ReviewTask, TaskStatus};
use reviewd_domain::ports::{
    AttemptStart, ClaimBatch, Preparation, PreparedPayload, RepoError, TaskInsert, TaskReservation,
};
use serde_json::json;
use std::time::Duration;
use uuid::Uuid;

const LEASE: Duration = Duration::from_secs(600);
const RETRY: Duration = Duration::from_secs(3600);
/// A server worker (a process's stable name), for the attempts runners meet.
const WORKER: &str = "worker-a";

pub async fn run(s: &Stores) {
    registration_keeps_counters_and_lists_latest_first(s).await;
    claims_oldest_first_within_capacity(s).await;
    one_attempt_per_merge_request(s).await;
    concurrent_claims_never_share_a_task(s).await;
    a_task_given_back_waits_the_retry_delay(s).await;
    only_the_holder_moves_a_held_task(s).await;
    logs_append_in_order(s).await;
    deregistering_requeues_or_fails_held_tasks(s).await;
    a_sweep_takes_back_tasks_of_silent_runners_and_lapsed_leases(s).await;
    runner_can_take_needs_a_fresh_task_and_a_capable_runner(s).await;
    prepared_rounds_are_claimed_first_and_orphans_found(s).await;
    preparations_are_passed_over_with_preparation_off(s).await;
    never_prepared_tasks_come_before_stale_preparations(s).await;
}

async fn claim(
    s: &Stores,
    runner: &str,
    limit: u32,
    lease: Duration,
    retry: Duration,
) -> Vec<Uuid> {
    let claimed = s
        .runners
        .claim(runner, limit, lease, retry)
        .await
        .expect("claim");
    assert!(claimed.iter().all(|t| t.status == TaskStatus::Processing));
    claimed.iter().map(|t| t.id).collect()
}

/// Queued tasks on MRs 1..=n of a fresh project, oldest first.
async fn tasks(s: &Stores, n: i64) -> (Project, Vec<ReviewTask>) {
    let project = seed::project(s).await;
    let mut tasks = Vec::new();
    for mr in 1..=n {
        tasks.push(seed::task(s, &project, mr, "aaa").await);
    }
    (project, tasks)
}

async fn one_try_task(s: &Stores, project: &Project, mr_iid: i64) -> ReviewTask {
    let new = NewReviewTask {
        max_attempts: 1,
        conversation_id: None,
        full_review: false,
        ..seed::new_task(project, mr_iid, "aaa")
    };
    match s.tasks.insert(new).await.unwrap() {
        (TaskInsert::Created(task), _) => task,
        other => panic!("expected a new task, got {other:?}"),
    }
}

async fn status(s: &Stores, id: Uuid) -> TaskStatus {
    s.tasks.get(id).await.expect("get the task").status
}

async fn done(s: &Stores, ids: &[Uuid]) {
    for id in ids {
        s.tasks.fail(*id, "the case is over").await.unwrap();
    }
}

fn ids(tasks: &[ReviewTask]) -> Vec<Uuid> {
    tasks.iter().map(|t| t.id).collect()
}

async fn registration_keeps_counters_and_lists_latest_first(s: &Stores) {
    let reg = seed::registration(2, &["gpu"]);
    let r = s.runners.upsert(&reg).await.unwrap();
    assert_eq!(
        (r.id.as_str(), r.name.as_str()),
        (reg.id.as_str(), reg.name.as_str())
    );
    assert_eq!(r.status, RunnerStatus::Online);
    assert_eq!((r.current_jobs, r.max_concurrent_jobs), (0, 2));
    assert_eq!(r.tags, vec!["gpu".to_owned()]);
    assert!(r.last_heartbeat.is_some());

    s.runners
        .count_finished(&r.id, RunnerOutcome::Success)
        .await
        .unwrap();
    s.runners
        .count_finished(&r.id, RunnerOutcome::Failed)
        .await
        .unwrap();
    let again = s
        .runners
        .upsert(&RunnerRegistration {
            name: "renamed".into(),
            version: "2.0.0".into(),
            max_concurrent_jobs: 3,
            tags: vec!["gpu".into(), "linux".into()],
            ..reg.clone()
        })
        .await
        .unwrap();
    assert_eq!(
        (again.name.as_str(), again.version.as_str()),
        ("renamed", "2.0.0")
    );
    assert_eq!(again.max_concurrent_jobs, 3);
    assert_eq!(again.tags, vec!["gpu".to_owned(), "linux".to_owned()]);
    assert_eq!(
        (again.total_jobs_completed, again.total_jobs_failed),
        (1, 1),
        "counters kept"
    );
    assert_eq!(again.registered_at, r.registered_at);
    assert_eq!(s.runners.get(&r.id).await.unwrap(), again);
    assert_eq!(s.runners.key_of(&r.id).await.unwrap(), None);

    let beat = s
        .runners
        .heartbeat(&r.id, RunnerStatus::Busy, 1)
        .await
        .unwrap();
    assert_eq!((beat.status, beat.current_jobs), (RunnerStatus::Busy, 1));
    assert!(beat.last_heartbeat >= again.last_heartbeat);

    let other = seed::runner(s, 1, &[]).await;
    s.runners
        .heartbeat(&r.id, RunnerStatus::Online, 0)
        .await
        .unwrap();
    let listed: Vec<String> = s
        .runners
        .list()
        .await
        .unwrap()
        .into_iter()
        .map(|r| r.id)
        .collect();
    let at = |id: &str| listed.iter().position(|l| l == id).expect("listed");
    assert!(
        at(&r.id) < at(&other.id),
        "the latest heartbeat first: {listed:?}"
    );

    let unknown = "no-such-runner";
    assert!(matches!(
        s.runners.get(unknown).await,
        Err(RepoError::NotFound)
    ));
    assert!(matches!(
        s.runners.key_of(unknown).await,
        Err(RepoError::NotFound)
    ));
    assert!(matches!(
        s.runners.heartbeat(unknown, RunnerStatus::Online, 0).await,
        Err(RepoError::NotFound)
    ));
    assert!(matches!(
        s.runners.claim(unknown, 1, LEASE, RETRY).await,
        Err(RepoError::NotFound)
    ));
}

/// Task tags cannot be set through the ports, so "required tags" is only seen
/// here as a tagged runner taking untagged tasks.
async fn claims_oldest_first_within_capacity(s: &Stores) {
    let (_, t) = tasks(s, 3).await;
    let r = seed::runner(s, 2, &["gpu"]).await;
    let claimed = s.runners.claim(&r.id, 10, LEASE, RETRY).await.unwrap();
    assert_eq!(
        ids(&claimed),
        vec![t[0].id, t[1].id],
        "the oldest, up to capacity"
    );
    assert!(
        claimed
            .iter()
            .all(|c| c.attempts == 1 && c.started_at.is_some())
    );
    let full = s.runners.get(&r.id).await.unwrap();
    assert_eq!((full.current_jobs, full.status), (2, RunnerStatus::Busy));
    assert!(
        claim(s, &r.id, 10, LEASE, RETRY).await.is_empty(),
        "no free capacity"
    );

    let held = s.runners.held(t[0].id).await.unwrap();
    assert_eq!(
        (held.task.id, held.runner_id.as_str()),
        (t[0].id, r.id.as_str())
    );
    assert_eq!(held.assignment, None);
    assert!(matches!(
        s.runners.held(t[2].id).await,
        Err(RepoError::NotFound)
    ));

    let r2 = seed::runner(s, 5, &[]).await;
    assert_eq!(
        claim(s, &r2.id, 1, LEASE, RETRY).await,
        vec![t[2].id],
        "within the limit"
    );
    done(s, &ids(&t)).await;
}

async fn one_attempt_per_merge_request(s: &Stores) {
    let project = seed::project(s).await;
    let worked = seed::task(s, &project, 1, "aaa").await;
    assert!(matches!(
        s.tasks
            .begin_attempt(worked.id, WORKER, LEASE)
            .await
            .unwrap(),
        AttemptStart::Started(_)
    ));
    let waiting = seed::task(s, &project, 1, "bbb").await;
    // Head-less tasks supersede nothing, so two of them can be queued on one MR.
    let headless = NewReviewTask {
        head_sha: None,
        ..seed::new_task(&project, 2, "")
    };
    let mut twins = Vec::new();
    for _ in 0..2 {
        let (TaskInsert::Created(t), _) = s.tasks.insert(headless.clone()).await.unwrap() else {
            panic!("a new task")
        };
        twins.push(t.id);
    }
    let r = seed::runner(s, 10, &[]).await;
    assert_eq!(
        claim(s, &r.id, 10, LEASE, RETRY).await,
        vec![twins[0]],
        "one task per MR, none of an MR a worker reviews"
    );
    assert!(claim(s, &r.id, 10, LEASE, RETRY).await.is_empty());
    for id in [twins[0], twins[1]] {
        assert_eq!(
            s.tasks
                .begin_attempt(id, WORKER, Duration::ZERO)
                .await
                .unwrap(),
            AttemptStart::Busy,
            "a runner's attempt is live until its lease or the sweep says otherwise"
        );
    }
    done(s, &[worked.id, waiting.id, twins[0], twins[1]]).await;
}

async fn concurrent_claims_never_share_a_task(s: &Stores) {
    let (_, t) = tasks(s, 6).await;
    let a = seed::runner(s, 10, &[]).await;
    let b = seed::runner(s, 10, &[]).await;
    let (x, y) = tokio::join!(
        claim(s, &a.id, 10, LEASE, RETRY),
        claim(s, &b.id, 10, LEASE, RETRY)
    );
    assert!(
        x.iter().all(|id| !y.contains(id)),
        "{x:?} and {y:?} overlap"
    );
    let mut all: Vec<Uuid> = x.iter().chain(&y).copied().collect();
    all.sort();
    let mut mine = ids(&t);
    mine.sort();
    assert_eq!(all, mine);
    let jobs = s.runners.get(&a.id).await.unwrap().current_jobs
        + s.runners.get(&b.id).await.unwrap().current_jobs;
    assert_eq!(jobs, 6);
    done(s, &ids(&t)).await;
}

async fn a_task_given_back_waits_the_retry_delay(s: &Stores) {
    let (_, t) = tasks(s, 1).await;
    let task = t[0].id;
    let r = seed::runner(s, 5, &[]).await;
    assert_eq!(claim(s, &r.id, 1, LEASE, RETRY).await, vec![task]);
    s.tasks
        .requeue(task, "the platform timed out")
        .await
        .unwrap();
    assert!(matches!(
        s.runners.held(task).await,
        Err(RepoError::NotFound)
    ));
    assert!(
        claim(s, &r.id, 1, LEASE, RETRY).await.is_empty(),
        "not within the delay"
    );
    let again = s
        .runners
        .claim(&r.id, 1, LEASE, Duration::ZERO)
        .await
        .unwrap();
    assert_eq!((ids(&again), again[0].attempts), (vec![task], 2));

    // A release is not the task's fault: its attempt is given back.
    let before = s.runners.get(&r.id).await.unwrap().current_jobs;
    s.runners
        .release(task, "someone-else", "not mine")
        .await
        .unwrap();
    assert_eq!(
        s.runners.held(task).await.unwrap().runner_id,
        r.id,
        "only the holder releases"
    );
    s.runners
        .release(task, &r.id, "prepare failed")
        .await
        .unwrap();
    let released = s.tasks.get(task).await.unwrap();
    assert_eq!(released.status, TaskStatus::Queued);
    assert_eq!(released.attempts, 1);
    assert_eq!(released.error_message.as_deref(), Some("prepare failed"));
    assert_eq!(s.runners.get(&r.id).await.unwrap().current_jobs, before - 1);
    assert!(claim(s, &r.id, 1, LEASE, RETRY).await.is_empty());
    assert_eq!(claim(s, &r.id, 1, LEASE, Duration::ZERO).await, vec![task]);
    done(s, &[task]).await;
}

async fn only_the_holder_moves_a_held_task(s: &Stores) {
    let (project, t) = tasks(s, 2).await;
    let task = t[0].id;
    let a = seed::runner(s, 1, &[]).await;
    let b = seed::runner(s, 1, &[]).await;
    assert_eq!(claim(s, &a.id, 5, LEASE, RETRY).await, vec![task]);

    let phase = |runner: String| async move {
        s.runners
            .set_phase(task, &runner, RunnerPhase::Cloning)
            .await
    };
    assert!(matches!(
        phase(b.id.clone()).await,
        Err(RepoError::NotFound)
    ));
    phase(a.id.clone()).await.unwrap();

    let review = seed::review(s, &project, 1, "aaa").await;
    let assignment = RunnerAssignment {
        min_severity: None,
        gate: None,
        // The analyzers a runner is told to run go with it too.
        tools: Some(reviewd_domain::review::tools::settings::RepoTools {
            run: Some(vec!["ruff".into()]),
            post: reviewd_domain::review::tools::PostMode::All,
            timeout_secs: Some(30),
            ..Default::default()
        }),
        review_id: review.id,
        round_id: Uuid::new_v4(),
        round_number: 1,
        base_sha: "base0".into(),
        head_sha: "aaa".into(),
        files: vec![],
        applied_rule_ids: vec!["rule-1".into()],
        ai_model: Some("model-b".into()),
        // The context a runner is told to read goes with the assignment.
        context: Some(reviewd_domain::context::ContextSettings {
            budget_tokens: 1_234,
            always: vec!["docs/arch.md".into()],
            instructions: Some("Queries go through db::query.".into()),
            ..reviewd_domain::context::ContextSettings::default()
        }),
    };
    s.runners.save_assignment(task, &assignment).await.unwrap();
    let held = s.runners.held(task).await.unwrap();
    assert_eq!(held.runner_id, a.id);
    assert_eq!(held.assignment, Some(assignment));
    assert_eq!(held.task.review_id, Some(review.id));

    let accept = |runner: String| async move {
        s.runners
            .accept_result(
                task,
                &runner,
                &json!({"status": "success"}),
                &json!({"durationMs": 1}),
            )
            .await
    };
    assert!(matches!(
        accept(b.id.clone()).await,
        Err(RepoError::NotFound)
    ));
    accept(a.id.clone()).await.unwrap();
    assert!(
        matches!(accept(a.id.clone()).await, Err(RepoError::NotFound)),
        "one result wins"
    );
    assert!(matches!(
        s.runners.held(task).await,
        Err(RepoError::NotFound)
    ));
    assert!(matches!(
        phase(a.id.clone()).await,
        Err(RepoError::NotFound)
    ));
    s.runners.release(task, &a.id, "late").await.unwrap();
    assert_eq!(
        status(s, task).await,
        TaskStatus::Processing,
        "being concluded"
    );
    assert_eq!(
        s.tasks
            .begin_attempt(task, WORKER, Duration::ZERO)
            .await
            .unwrap(),
        AttemptStart::Busy
    );
    assert!(
        claim(s, &a.id, 5, LEASE, RETRY).await.is_empty(),
        "still a job of the runner"
    );

    s.tasks.complete(task, Some(review.id)).await.unwrap();
    assert_eq!(status(s, task).await, TaskStatus::Completed);
    assert_eq!(claim(s, &a.id, 5, LEASE, RETRY).await, vec![t[1].id]);
    done(s, &[t[1].id]).await;
}

async fn logs_append_in_order(s: &Stores) {
    let (_, t) = tasks(s, 2).await;
    let lines = |l: &[&str]| l.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>();
    assert_eq!(
        s.runners
            .append_logs(t[0].id, &lines(&["one", "two"]))
            .await
            .unwrap(),
        2
    );
    assert_eq!(
        s.runners
            .append_logs(t[0].id, &lines(&["three"]))
            .await
            .unwrap(),
        3
    );
    let logs = s.runners.logs(t[0].id).await.unwrap();
    let numbered: Vec<(i32, &str)> = logs.iter().map(|(n, m, _)| (*n, m.as_str())).collect();
    assert_eq!(numbered, vec![(1, "one"), (2, "two"), (3, "three")]);
    assert!(logs.windows(2).all(|w| w[0].2 <= w[1].2));
    assert!(s.runners.logs(t[1].id).await.unwrap().is_empty());
    assert!(matches!(
        s.runners.append_logs(Uuid::new_v4(), &lines(&["x"])).await,
        Err(RepoError::NotFound)
    ));
    done(s, &ids(&t)).await;
}

async fn deregistering_requeues_or_fails_held_tasks(s: &Stores) {
    let project = seed::project(s).await;
    let keep = seed::task(s, &project, 1, "aaa").await.id;
    let last = one_try_task(s, &project, 2).await.id;
    let r = seed::runner(s, 5, &[]).await;
    assert_eq!(claim(s, &r.id, 5, LEASE, RETRY).await, vec![keep, last]);

    let report = s.runners.deregister(&r.id).await.unwrap();
    assert_eq!(report.runners_offline, 1);
    assert_eq!((report.requeued, report.failed), (vec![keep], vec![last]));
    let gone = s.runners.get(&r.id).await.unwrap();
    assert_eq!((gone.status, gone.current_jobs), (RunnerStatus::Offline, 0));
    let requeued = s.tasks.get(keep).await.unwrap();
    assert_eq!(
        (requeued.status, requeued.attempts),
        (TaskStatus::Queued, 1)
    );
    assert!(requeued.error_message.is_some());
    assert!(matches!(
        s.runners.held(keep).await,
        Err(RepoError::NotFound)
    ));
    let failed = s.tasks.get(last).await.unwrap();
    assert_eq!(failed.status, TaskStatus::Failed);
    assert!(failed.completed_at.is_some());

    // Requeued, a task keeps its head; failed, it frees it.
    let (dup, _) = s
        .tasks
        .insert(seed::new_task(&project, 1, "aaa"))
        .await
        .unwrap();
    assert!(
        matches!(&dup, TaskInsert::Duplicate(t) if t.id == keep),
        "{dup:?}"
    );
    let (TaskInsert::Created(fresh), _) = s
        .tasks
        .insert(seed::new_task(&project, 2, "aaa"))
        .await
        .unwrap()
    else {
        panic!("the failed task's head is free")
    };
    assert!(matches!(
        s.runners.deregister("no-such-runner").await,
        Err(RepoError::NotFound)
    ));
    let back = s
        .runners
        .upsert(&RunnerRegistration {
            id: r.id.clone(),
            ..seed::registration(5, &[])
        })
        .await
        .unwrap();
    assert_eq!(back.status, RunnerStatus::Online);
    done(s, &[keep, fresh.id]).await;
}

async fn a_sweep_takes_back_tasks_of_silent_runners_and_lapsed_leases(s: &Stores) {
    let project = seed::project(s).await;
    let silent = seed::runner(s, 5, &[]).await;
    let last_try = one_try_task(s, &project, 1).await.id;
    assert_eq!(claim(s, &silent.id, 5, LEASE, RETRY).await, vec![last_try]);

    let alive = seed::runner(s, 5, &[]).await;
    let lapsing = seed::task(s, &project, 2, "aaa").await.id;
    let concluding = seed::task(s, &project, 3, "aaa").await.id;
    let lapsed = claim(s, &alive.id, 5, Duration::ZERO, RETRY).await;
    assert_eq!(lapsed, vec![lapsing, concluding]);
    s.runners
        .accept_result(concluding, &alive.id, &json!({}), &json!({}))
        .await
        .unwrap();
    let live = seed::task(s, &project, 4, "aaa").await.id;
    assert_eq!(claim(s, &alive.id, 1, LEASE, RETRY).await, vec![live]);

    let cutoff = s
        .runners
        .get(&alive.id)
        .await
        .unwrap()
        .last_heartbeat
        .unwrap();
    let report = s.runners.sweep_silent(cutoff).await.unwrap();
    assert!(report.runners_offline >= 1);
    assert_eq!(
        s.runners.get(&silent.id).await.unwrap().status,
        RunnerStatus::Offline
    );
    assert_ne!(
        s.runners.get(&alive.id).await.unwrap().status,
        RunnerStatus::Offline
    );
    assert!(
        report.failed.contains(&last_try),
        "out of attempts: {report:?}"
    );
    assert!(
        report.requeued.contains(&lapsing),
        "past its lease: {report:?}"
    );
    assert!(
        report.requeued.contains(&concluding),
        "its conclusion died: {report:?}"
    );
    assert!(!report.requeued.contains(&live) && !report.failed.contains(&live));
    assert_eq!(status(s, last_try).await, TaskStatus::Failed);
    assert_eq!(status(s, lapsing).await, TaskStatus::Queued);
    assert_eq!(s.runners.held(live).await.unwrap().runner_id, alive.id);
    done(s, &[lapsing, concluding, live]).await;
}

/// Runs last: the runners of the other cases were all heard from before this one.
async fn runner_can_take_needs_a_fresh_task_and_a_capable_runner(s: &Stores) {
    let (_, t) = tasks(s, 2).await;
    let (other, task) = (t[0].id, &t[1]);
    let r = seed::runner(s, 1, &[]).await;
    let registered = r.last_heartbeat.unwrap();
    let heard = s
        .runners
        .heartbeat(&r.id, RunnerStatus::Online, 0)
        .await
        .unwrap()
        .last_heartbeat
        .unwrap();
    let queued = task.updated_at;
    let just_before = queued - chrono::Duration::milliseconds(1);
    let can = |queued_after, heard_after| async move {
        s.runners
            .runner_can_take(task.id, queued_after, heard_after)
            .await
            .unwrap()
    };
    assert!(can(just_before, registered).await);
    assert!(!can(queued, registered).await, "queued too long ago");
    assert!(!can(just_before, heard).await, "no runner heard from since");

    assert_eq!(claim(s, &r.id, 5, LEASE, RETRY).await, vec![other]);
    assert!(
        !can(just_before, registered).await,
        "its one runner is full"
    );
    assert!(
        !s.runners
            .runner_can_take(other, just_before, registered)
            .await
            .unwrap(),
        "not queued"
    );
    done(s, &ids(&t)).await;
}

fn prepared_assignment(review_id: ReviewId, round_id: Uuid, head: &str) -> RunnerAssignment {
    RunnerAssignment {
        review_id,
        round_id,
        round_number: 1,
        base_sha: "base".into(),
        head_sha: head.into(),
        files: vec![],
        applied_rule_ids: vec![],
        ai_model: Some("model-1".into()),
        min_severity: None,
        context: None,
        gate: None,
        tools: None,
    }
}

fn preparation(task: &ReviewTask, title: &str) -> Preparation {
    Preparation {
        at: chrono::Utc::now(),
        attempts: task.attempts,
        payload: Some(PreparedPayload {
            mr_title: title.into(),
            mr_description: None,
            source_branch: "feature".into(),
            target_branch: "main".into(),
            system_prompt: "Review.".into(),
            rules: vec![],
            ai_config_id: None,
        }),
    }
}

/// A runner with room for 5 tasks, registered with a new user's API key: the key's
/// id and the registration.
async fn keyed_runner(s: &Stores) -> (Uuid, RunnerRegistration) {
    let user = seed::user(s).await;
    let key = s
        .api_keys
        .create(seed::new_api_key(user.id, None))
        .await
        .unwrap()
        .id;
    let registration = RunnerRegistration {
        api_key_id: Some(key),
        ..seed::registration(5, &[])
    };
    s.runners.upsert(&registration).await.unwrap();
    (key, registration)
}

/// The oldest queued task, held for preparing (any preparation made since the
/// epoch counts as fresh, for both stores' clocks).
/// Saves the held task's preparation with a round of `review` at head `h1`, and
/// returns the assignment saved.
async fn save_prepared(
    held: Box<dyn TaskReservation>,
    task: &ReviewTask,
    title: &str,
    review_id: ReviewId,
    round_id: Uuid,
) -> RunnerAssignment {
    let assignment = prepared_assignment(review_id, round_id, "h1");
    assert!(
        held.save(&preparation(task, title), Some(&assignment))
            .await
            .unwrap(),
        "the preparation of {} is saved",
        task.id
    );
    assignment
}

async fn reserve_oldest(s: &Stores) -> Box<dyn TaskReservation> {
    let long_ago = chrono::DateTime::<chrono::Utc>::UNIX_EPOCH;
    s.runners
        .reserve_to_prepare(RETRY, long_ago, long_ago)
        .await
        .unwrap()
        .expect("a queued task is held for preparing")
}

/// A preparer's hold hides the task's MR from claims; a stored preparation is
/// claimed first, with its round, by the key's runner only; a superseded task's
/// preparation is found as an orphan, its round still open, until forgotten.
async fn prepared_rounds_are_claimed_first_and_orphans_found(s: &Stores) {
    // Far enough back for both stores' clocks (the memory one is a fake).
    let long_ago = chrono::DateTime::<chrono::Utc>::UNIX_EPOCH;
    let (project, review, round) = seed::review_in_first_round(s, 41).await;
    let task = seed::task(s, &project, 41, "h1").await;
    let (key, registration) = keyed_runner(s).await;
    let runner = registration.id.as_str();

    let held = reserve_oldest(s).await;
    assert_eq!(held.task().id, task.id);
    let claimed = s
        .runners
        .claim_ready(runner, key, 5, LEASE, RETRY, Some(long_ago))
        .await
        .unwrap();
    assert!(
        matches!(claimed, ClaimBatch::Held),
        "a held MR is not claimed, and the claim says why: {claimed:?}"
    );
    let assignment = save_prepared(held, &task, "Prepared", review.id, round.id).await;
    let budget = s
        .runners
        .preparation_budget(long_ago, long_ago)
        .await
        .unwrap();
    assert_eq!(budget.prepared, 1, "{budget:?}");
    assert!(
        budget.runners_online >= 1 && budget.free_capacity >= 5,
        "{budget:?}"
    );
    assert!(
        s.runners
            .reserve_to_prepare(RETRY, long_ago, long_ago)
            .await
            .unwrap()
            .is_none(),
        "a prepared task is not held again"
    );
    assert!(matches!(
        s.runners
            .claim_ready(runner, Uuid::new_v4(), 5, LEASE, RETRY, Some(long_ago))
            .await
            .unwrap(),
        ClaimBatch::WrongKey
    ));
    let ClaimBatch::Claimed(rows) = s
        .runners
        .claim_ready(runner, key, 5, LEASE, RETRY, Some(long_ago))
        .await
        .unwrap()
    else {
        panic!("the runner's own key claims");
    };
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0].task.id, task.id);
    assert_eq!(rows[0].task.status, TaskStatus::Processing);
    assert_eq!(rows[0].task.attempts, 1);
    let prepared = rows[0].prepared.clone().expect("claimed with its round");
    assert_eq!(prepared.assignment, assignment);
    assert_eq!(prepared.payload.mr_title, "Prepared");
    let held_now = s.runners.held(task.id).await.unwrap();
    assert_eq!(held_now.assignment, Some(assignment));

    // A second MR: prepared, then superseded by a newer head.
    let review2 = seed::review(s, &project, 42, "h1").await;
    let round2 = seed::first_round(s, &review2).await;
    let old = seed::task(s, &project, 42, "h1").await;
    let held = reserve_oldest(s).await;
    assert_eq!(held.task().id, old.id);
    let assignment2 = save_prepared(held, &old, "Old", review2.id, round2.id).await;
    let newer = seed::task(s, &project, 42, "h2").await;
    assert_eq!(status(s, old.id).await, TaskStatus::Superseded);
    let orphan = s
        .runners
        .reserve_orphaned_preparation()
        .await
        .unwrap()
        .expect("the superseded task's preparation is an orphan");
    assert_eq!(orphan.reservation.task().id, old.id);
    assert_eq!(orphan.assignment, Some(assignment2));
    assert!(orphan.round_open, "nothing replaced its round");
    orphan.reservation.forget().await.unwrap();
    assert!(
        s.runners
            .reserve_orphaned_preparation()
            .await
            .unwrap()
            .is_none(),
        "a forgotten preparation is no orphan"
    );
    s.runners.deregister(runner).await.unwrap();
    done(s, &[task.id, newer.id]).await;
}

/// With rounds not prepared ahead (`fresh_after` none), a stored preparation is
/// not handed out: the task is claimed like any queued one, to be prepared inline.
async fn preparations_are_passed_over_with_preparation_off(s: &Stores) {
    let long_ago = chrono::DateTime::<chrono::Utc>::UNIX_EPOCH;
    let (project, review, round) = seed::review_in_first_round(s, 43).await;
    let task = seed::task(s, &project, 43, "h1").await;
    let (key, registration) = keyed_runner(s).await;
    let runner = registration.id.as_str();
    let held = reserve_oldest(s).await;
    save_prepared(held, &task, "Prepared", review.id, round.id).await;
    assert_eq!(
        s.runners
            .preparation_budget(long_ago, long_ago)
            .await
            .unwrap()
            .prepared,
        1,
        "the preparation is stored"
    );
    let ClaimBatch::Claimed(rows) = s
        .runners
        .claim_ready(runner, key, 5, LEASE, RETRY, None)
        .await
        .unwrap()
    else {
        panic!("the queued task is claimed");
    };
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0].task.id, task.id);
    assert_eq!(rows[0].task.status, TaskStatus::Processing);
    assert!(
        rows[0].prepared.is_none(),
        "no round handed out with preparation off: {:?}",
        rows[0].prepared
    );
    s.runners.deregister(runner).await.unwrap();
    done(s, &[task.id]).await;
}

/// The preparer takes a task never prepared before an older one whose preparation
/// went stale, and comes back to the stale one once none is left.
async fn never_prepared_tasks_come_before_stale_preparations(s: &Stores) {
    let long_ago = chrono::DateTime::<chrono::Utc>::UNIX_EPOCH;
    // Later than any preparation made here: every stored one counts as stale.
    let stale_after = chrono::Utc::now() + chrono::Duration::days(365);
    let (old_project, old_review, old_round) = seed::review_in_first_round(s, 44).await;
    let old = seed::task(s, &old_project, 44, "h1").await;
    let (new_project, new_review, new_round) = seed::review_in_first_round(s, 45).await;
    let (_, registration) = keyed_runner(s).await;

    let held = reserve_oldest(s).await;
    assert_eq!(held.task().id, old.id);
    save_prepared(held, &old, "Old", old_review.id, old_round.id).await;
    let new = seed::task(s, &new_project, 45, "h1").await;
    let held = s
        .runners
        .reserve_to_prepare(RETRY, stale_after, long_ago)
        .await
        .unwrap()
        .expect("a task to prepare");
    assert_eq!(
        held.task().id,
        new.id,
        "the task never prepared comes before the older stale one"
    );
    save_prepared(held, &new, "New", new_review.id, new_round.id).await;
    let held = s
        .runners
        .reserve_to_prepare(RETRY, stale_after, long_ago)
        .await
        .unwrap()
        .expect("a stale preparation to make again");
    assert_eq!(held.task().id, old.id, "then the oldest stale one");
    held.release().await;
    assert!(
        s.runners
            .reserve_to_prepare(RETRY, long_ago, long_ago)
            .await
            .unwrap()
            .is_none(),
        "fresh preparations are not held again"
    );
    s.runners.deregister(&registration.id).await.unwrap();
    done(s, &[old.id, new.id]).await;
}

//! A head another process queued meanwhile is a duplicate; an unreachable store answers
//! unavailable.

use super::*;

/// Another process queues the same head at the same moment: its insert, not yet
/// committed, holds the unique index, so this statement waits, then is refused when
/// the other commits. The caller gets the other's task back as a duplicate, not
/// an error.
#[tokio::test]
async fn a_head_another_process_queued_meanwhile_is_a_duplicate() {
    use diesel_async::RunQueryDsl;
    use reviewd_domain::ports::TaskInsert;
    use reviewd_testkit::contract::seed;

    #[derive(diesel::QueryableByName)]
    struct Id {
        #[diesel(sql_type = diesel::sql_types::Uuid)]
        id: uuid::Uuid,
    }

    let (stores, db) = postgres().await;
    let project = seed::project(&stores).await;
    let new = seed::new_task(&project, 7, "aaa");
    let pool = db.pool().await;
    let mut other = pool.get().await.unwrap();
    diesel::sql_query("BEGIN")
        .execute(&mut other)
        .await
        .unwrap();
    let held: Id = diesel::sql_query(
        "INSERT INTO review_tasks (triggered_by, project_id, mr_iid, head_sha, status, dedup_key)
         VALUES ('auto', $1, 7, 'aaa', 'queued', $2) RETURNING id",
    )
    .bind::<diesel::sql_types::Uuid, _>(project.id.0)
    .bind::<diesel::sql_types::Text, _>(new.dedup_key().unwrap())
    .get_result(&mut other)
    .await
    .unwrap();

    let tasks = stores.tasks.clone();
    let queued = tokio::spawn(async move { tasks.insert(new).await });
    // Until the batch's insert waits on the other's row (a lock not granted).
    let mut waiting = false;
    for _ in 0..200 {
        let locks: Count =
            diesel::sql_query("SELECT count(*)::bigint AS n FROM pg_locks WHERE NOT granted")
                .get_result(&mut other)
                .await
                .unwrap();
        if locks.n > 0 {
            waiting = true;
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(25)).await;
    }
    assert!(waiting, "the insert waits on the other's row");
    assert!(!queued.is_finished());
    diesel::sql_query("COMMIT")
        .execute(&mut other)
        .await
        .unwrap();

    match queued.await.unwrap().unwrap() {
        (TaskInsert::Duplicate(task), 0) => assert_eq!(task.id, held.id),
        answer => panic!("the other process's task as a duplicate: {answer:?}"),
    }
}

/// A database that cannot be reached: a webhook's task is answered "unavailable"
/// (the webhook then gets its 500 and is sent again), with the store's message
/// once, not left waiting.
#[tokio::test]
async fn an_unreachable_store_answers_unavailable() {
    use reviewd_domain::ports::{RepoError, TaskRepository};
    use reviewd_testkit::contract::seed;

    let (stores, _db) = postgres().await;
    let project = seed::project(&stores).await;
    let manager = AsyncDieselConnectionManager::<AsyncPgConnection>::new(
        "postgres://reviewd@127.0.0.1:1/reviewd",
    );
    let unreachable = PgTaskRepository::new(PgPool::builder(manager).build().unwrap());
    let answer = tokio::time::timeout(
        std::time::Duration::from_secs(10),
        unreachable.insert(seed::new_task(&project, 1, "aaa")),
    )
    .await
    .expect("an answer, not a hang");
    match answer {
        Err(RepoError::Unavailable(message)) => {
            assert!(!message.contains("store unavailable"), "{message}");
        }
        other => panic!("unavailable: {other:?}"),
    }
}

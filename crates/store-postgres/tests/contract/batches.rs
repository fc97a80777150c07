//! Tasks queued at once share their commits; message ids are written durably after.

use super::*;

/// The webhooks of one moment share their statements: forty tasks queued at once
/// are committed by a few transactions, not one each (the rows one statement
/// inserted share their `xmin`). Each caller still gets its own task back.
#[tokio::test]
async fn tasks_queued_at_once_share_their_commits() {
    use reviewd_domain::ports::TaskInsert;
    use reviewd_testkit::contract::seed;

    let (stores, db) = postgres().await;
    let project = seed::project(&stores).await;
    let mut inserts = tokio::task::JoinSet::new();
    for mr in 0..40 {
        let (tasks, new) = (stores.tasks.clone(), seed::new_task(&project, mr, "aaa"));
        inserts.spawn(async move { (mr, tasks.insert(new).await.unwrap()) });
    }
    let mut ids = Vec::new();
    for (mr, answer) in inserts.join_all().await {
        let (TaskInsert::Created(task), 0) = answer else {
            panic!("MR {mr}: a new task, nothing superseded: {answer:?}")
        };
        assert_eq!(task.mr_iid, mr, "each caller gets its own task");
        ids.push(task.id);
    }

    let mut conn = db.pool().await.get().await.unwrap();
    let transactions: Count = diesel_async::RunQueryDsl::get_result(
        diesel::sql_query(
            "SELECT count(DISTINCT xmin::text)::bigint AS n FROM review_tasks WHERE id = ANY($1)",
        )
        .bind::<diesel::sql_types::Array<diesel::sql_types::Uuid>, _>(&ids),
        &mut conn,
    )
    .await
    .unwrap();
    assert!(
        transactions.n < 10,
        "40 tasks queued at once took {} commits",
        transactions.n
    );
}

/// A queued task's message id is written by the writer the webhooks hand it to,
/// with a commit that does not wait for the disk; that setting ends with the write's
/// transaction, so the next statement on the same connection (a webhook's insert)
/// commits durably again.
#[tokio::test]
async fn a_message_id_is_written_and_the_connection_commits_durably_after() {
    use diesel_async::RunQueryDsl;
    use reviewd_domain::ports::{TaskInsert, TaskRepository};
    use reviewd_testkit::contract::seed;
    use std::time::Duration;

    #[derive(diesel::QueryableByName)]
    struct Setting {
        #[diesel(sql_type = diesel::sql_types::Text)]
        synchronous_commit: String,
    }
    #[derive(diesel::QueryableByName)]
    struct StreamId {
        #[diesel(sql_type = diesel::sql_types::Nullable<diesel::sql_types::Text>)]
        stream_message_id: Option<String>,
    }

    let (stores, db) = postgres().await;
    let project = seed::project(&stores).await;
    // One connection: the writer's and the check's are the same session.
    let pool = reviewd_store_postgres::connect(db.url(), 1, Duration::from_secs(10))
        .await
        .unwrap();
    let tasks = PgTaskRepository::new(pool.clone());
    let (TaskInsert::Created(task), _) = tasks
        .insert(seed::new_task(&project, 1, "aaa"))
        .await
        .unwrap()
    else {
        panic!("a new task")
    };
    tasks.note_stream_id(task.id, "1-0").await.unwrap();
    let mut check = db.pool().await.get().await.unwrap();
    let mut written = None;
    for _ in 0..100 {
        let row: StreamId =
            diesel::sql_query("SELECT stream_message_id FROM review_tasks WHERE id = $1")
                .bind::<diesel::sql_types::Uuid, _>(task.id)
                .get_result(&mut check)
                .await
                .unwrap();
        written = row.stream_message_id;
        if written.is_some() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(written.as_deref(), Some("1-0"), "the writer wrote the id");
    let mut conn = pool.get().await.unwrap();
    let setting: Setting = diesel::sql_query("SHOW synchronous_commit")
        .get_result(&mut conn)
        .await
        .unwrap();
    assert_eq!(setting.synchronous_commit, "on");
}

//! A statement kept prepared keeps its plan on its connection: PostgreSQL makes a
//! generic plan after the fifth run and reuses it until the table is analysed
//! again. One made while `review_tasks` held a handful of rows reads the table
//! whole, and keeps doing so when it holds tens of thousands: autovacuum analyses
//! it after a minute at best, and a flood of webhooks on a fresh install grows it
//! faster than that. The bench's cluster showed the queue message id's write
//! reading 5,146 pages for 3 tasks (10.8 ms) on such a connection. These tests make
//! the plan on an almost empty table, grow the table, and read the plan the
//! connection holds.
#![expect(
    clippy::unwrap_used,
    reason = "tests: a panic fails the test, with its message"
)]

use diesel::QueryableByName;
use diesel::sql_types::Text;
use diesel_async::RunQueryDsl;
use reviewd_domain::model::{NewReviewTask, TriggeredBy};
use reviewd_domain::ports::{TaskInsert, TaskRepository};
use reviewd_store_postgres::{PgPool, PgTaskRepository, connect};
use reviewd_testkit::{TestDb, execute_sql};
use std::time::{Duration, Instant};
use uuid::Uuid;

const PROJECT: Uuid = Uuid::from_u128(0x0000_0000_0000_4000_8000_0000_0000_0002);

const SEED: &str = "
INSERT INTO platform_configs (id, name, platform_type, base_url)
     VALUES ('00000000-0000-4000-8000-000000000001', 'g', 'hostA', 'https://git.example.com');
INSERT INTO projects (id, platform_config_id, platform_type, platform_project_id, name, full_path, web_url)
     VALUES ('00000000-0000-4000-8000-000000000002', '00000000-0000-4000-8000-000000000001',
             'hostA', '1', 'p', 'g/p', 'https://git.example.com/g/p');";

/// Finished tasks, as a team's table holds after some weeks: none is active, so
/// none stands in the way of the queue's own.
const GROW: &str = "
INSERT INTO review_tasks (triggered_by, project_id, mr_iid, head_sha, status, stream_message_id)
SELECT 'auto', '00000000-0000-4000-8000-000000000002', 100000 + n, md5(n::text), 'completed',
       '1-' || n
  FROM generate_series(1, 20000) n;";

#[derive(QueryableByName)]
struct Line {
    #[diesel(sql_type = Text)]
    text: String,
}

/// A line of `EXPLAIN`'s output.
#[derive(QueryableByName)]
struct PlanLine {
    #[diesel(sql_type = Text, column_name = "QUERY PLAN")]
    line: String,
}

/// A migrated database with one project, and the task store on a pool of one
/// connection, so that the plans a test reads are those the store's statements used.
struct OneConnection {
    _db: TestDb,
    admin: PgPool,
    pool: PgPool,
    tasks: PgTaskRepository,
}

async fn one_connection() -> OneConnection {
    let db = TestDb::new().await;
    let admin = db.pool().await;
    execute_sql(&admin, SEED).await;
    let pool = connect(db.url(), 1, Duration::from_secs(10)).await.unwrap();
    let tasks = PgTaskRepository::new(pool.clone());
    OneConnection {
        _db: db,
        admin,
        pool,
        tasks,
    }
}

async fn queue(tasks: &PgTaskRepository, mr_iid: i64) -> Uuid {
    let task = NewReviewTask {
        triggered_by: TriggeredBy::Auto,
        project_id: PROJECT.into(),
        mr_iid,
        head_sha: Some(format!("{mr_iid:040x}")),
        send_to_platform: true,
        template_id: None,
        requested_by: None,
        max_attempts: 3,
        conversation_id: None,
        full_review: false,
    };
    match tasks.insert(task).await.unwrap() {
        (TaskInsert::Created(task), _) => task.id,
        (TaskInsert::Duplicate(task), _) => panic!("{} queued twice", task.id),
    }
}

/// Notes the task's message id and waits until the writer has written it.
async fn note(tasks: &PgTaskRepository, admin: &PgPool, id: Uuid) {
    tasks
        .note_stream_id(id, &format!("9-{}", id.as_u128() % 1000))
        .await
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let mut conn = admin.get().await.unwrap();
        let written: Vec<Line> = diesel::sql_query(
            "SELECT stream_message_id AS text FROM review_tasks
              WHERE id = $1 AND stream_message_id IS NOT NULL",
        )
        .bind::<diesel::sql_types::Uuid, _>(id)
        .load(&mut conn)
        .await
        .unwrap();
        if !written.is_empty() {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "the message id of {id} was never written"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// The plan the connection holds for the kept statement whose text contains `marker`,
/// run with `args`.
async fn held_plan(pool: &PgPool, marker: &str, args: &str) -> String {
    let mut conn = pool.get().await.unwrap();
    let names: Vec<Line> = diesel::sql_query(
        "SELECT name AS text FROM pg_prepared_statements WHERE strpos(statement, $1) > 0",
    )
    .bind::<Text, _>(marker)
    .load(&mut conn)
    .await
    .unwrap();
    assert_eq!(names.len(), 1, "one kept statement holds `{marker}`");
    let plan: Vec<PlanLine> = diesel::sql_query(format!(
        "EXPLAIN (COSTS OFF) EXECUTE {}({args})",
        names[0].text
    ))
    .load(&mut conn)
    .await
    .unwrap();
    plan.into_iter()
        .map(|l| l.line)
        .collect::<Vec<_>>()
        .join("\n")
}

#[tokio::test]
async fn the_message_id_write_finds_its_tasks_by_key_after_the_table_grew() {
    let OneConnection {
        _db,
        admin,
        pool,
        tasks,
    } = one_connection().await;
    // Seven writes while the table is nearly empty: the sixth makes the plan kept.
    for mr_iid in 1..=7 {
        let id = queue(&tasks, mr_iid).await;
        note(&tasks, &admin, id).await;
    }
    execute_sql(&admin, GROW).await;
    let id = queue(&tasks, 8).await;
    note(&tasks, &admin, id).await;

    let plan = held_plan(
        &pool,
        "SET stream_message_id",
        &format!("ARRAY['{id}']::uuid[], ARRAY['9-1']"),
    )
    .await;
    assert!(
        plan.contains("Index Scan using review_tasks_pkey") && !plan.contains("Seq Scan"),
        "the write reads its tasks by key, whatever the table held when it was planned:\n{plan}"
    );
}

#[tokio::test]
async fn queueing_finds_the_head_and_the_mr_by_index_after_the_table_grew() {
    let OneConnection {
        _db,
        admin,
        pool,
        tasks,
    } = one_connection().await;
    for mr_iid in 1..=7 {
        queue(&tasks, mr_iid).await;
    }
    execute_sql(&admin, GROW).await;
    queue(&tasks, 8).await;

    let plan = held_plan(
        &pool,
        "WITH input AS",
        &format!(
            "ARRAY[gen_random_uuid()], ARRAY['{PROJECT}:9:a'], ARRAY['a'], ARRAY['{PROJECT}'::uuid], \
             ARRAY[9::int8], ARRAY['auto'], ARRAY[true], ARRAY[NULL::uuid], ARRAY[NULL::uuid], ARRAY[3], \
             ARRAY[NULL::uuid], ARRAY[false]"
        ),
    )
    .await;
    assert!(
        !plan.contains("Seq Scan on review_tasks"),
        "queueing looks up the head and the MR by index, whatever the table held when it \
         was planned:\n{plan}"
    );
}

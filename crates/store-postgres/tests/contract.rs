//! The repository port contract suites (`reviewd_testkit::contract`) against the
//! PostgreSQL adapters, each on a fresh database.
#![expect(
    clippy::unwrap_used,
    reason = "tests: a panic fails the test, with its message"
)]

use diesel_async::AsyncPgConnection;
use diesel_async::pooled_connection::AsyncDieselConnectionManager;
use reviewd_crypto::SecretBox;
use reviewd_store_postgres::{
    PgAiConfigRepository, PgApiKeyRepository, PgCatalogRepository, PgDataWipe,
    PgFeedbackRepository, PgHealthCheckRepository, PgHealthProbe, PgJobLedger,
    PgMonitoringRepository, PgNotificationRepository, PgPlatformConfigRepository, PgPool,
    PgProjectRepository, PgReviewQueries, PgReviewRepository, PgRunnerRepository,
    PgSessionRepository, PgSettingsRepository, PgTaskRepository, PgUserRepository,
};
use reviewd_testkit::TestDb;
use reviewd_testkit::contract::Stores;
use std::sync::Arc;

async fn postgres() -> (Stores, TestDb) {
    let db = TestDb::new().await;
    let pool = db.pool().await;
    let secrets = SecretBox::from_key(&[7; 32]);
    let stores = Stores {
        platform_configs: Arc::new(PgPlatformConfigRepository::new(
            pool.clone(),
            secrets.clone(),
        )),
        ai_configs: Arc::new(PgAiConfigRepository::new(pool.clone(), secrets.clone())),
        projects: Arc::new(PgProjectRepository::new(pool.clone())),
        settings: Arc::new(PgSettingsRepository::new(pool.clone())),
        catalog: Arc::new(PgCatalogRepository::new(pool.clone())),
        tasks: Arc::new(PgTaskRepository::new(pool.clone())),
        runners: Arc::new(PgRunnerRepository::new(pool.clone())),
        reviews: Arc::new(PgReviewRepository::new(pool.clone())),
        feedback: Arc::new(PgFeedbackRepository::new(pool.clone())),
        review_queries: Arc::new(PgReviewQueries::new(pool.clone())),
        notifications: Arc::new(PgNotificationRepository::new(pool.clone(), secrets)),
        monitoring: Arc::new(PgMonitoringRepository::new(pool.clone())),
        jobs: Arc::new(PgJobLedger::new(pool.clone())),
        health_checks: Arc::new(PgHealthCheckRepository::new(pool.clone())),
        users: Arc::new(PgUserRepository::new(pool.clone())),
        sessions: Arc::new(PgSessionRepository::new(pool.clone())),
        api_keys: Arc::new(PgApiKeyRepository::new(pool.clone())),
        wipe: Arc::new(PgDataWipe::new(pool)),
    };
    (stores, db)
}

reviewd_testkit::repository_contract_tests!(postgres);

/// Days pass for the rows, since the database's clock cannot be moved.
struct PgCalendar(PgPool);

#[async_trait::async_trait]
impl reviewd_testkit::contract::costs::Calendar for PgCalendar {
    async fn days_pass(&self, days: u32) {
        let mut conn = self.0.get().await.unwrap();
        for table in ["reviews", "ai_call_logs"] {
            diesel_async::RunQueryDsl::execute(
                diesel::sql_query(format!(
                    "UPDATE {table} SET created_at = created_at - make_interval(days => {days})"
                )),
                &mut conn,
            )
            .await
            .unwrap();
        }
    }
}

#[tokio::test]
async fn costs_by_day() {
    let (stores, db) = postgres().await;
    let calendar = PgCalendar(db.pool().await);
    reviewd_testkit::contract::costs::by_day(&stores, &calendar).await;
}

#[tokio::test]
async fn health_probe() {
    let db = TestDb::new().await;
    // `connect` refuses an unreachable server: the pool is built without its check.
    let manager = AsyncDieselConnectionManager::<AsyncPgConnection>::new(
        "postgres://reviewd@127.0.0.1:1/reviewd",
    );
    let unreachable: PgPool = PgPool::builder(manager).build().unwrap();
    reviewd_testkit::contract::health_probe::run(
        &PgHealthProbe::new(db.pool().await),
        &PgHealthProbe::new(unreachable),
    )
    .await;
}

#[derive(diesel::QueryableByName)]
struct Count {
    #[diesel(sql_type = diesel::sql_types::BigInt)]
    n: i64,
}

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
    .bind::<diesel::sql_types::Uuid, _>(project.id)
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

/// A backlog the table's statistics have not seen yet (it built up faster than
/// autovacuum analyses): a claim still reads the queue from its head, prepared or
/// not, instead of reading every queued task and sorting them. The index entries
/// the claims read are counted from PostgreSQL's statistics.
#[tokio::test]
async fn a_backlog_the_statistics_have_not_seen_is_claimed_from_its_head() {
    use diesel_async::{RunQueryDsl, SimpleAsyncConnection};
    use reviewd_domain::ports::{ClaimBatch, RunnerRepository};
    use reviewd_testkit::contract::seed;
    use std::time::Duration;

    let (stores, db) = postgres().await;
    let project = seed::project(&stores).await;
    let pool = db.pool().await;
    let mut conn = pool.get().await.unwrap();
    // Statistics taken with the queue empty, and kept so.
    conn.batch_execute(&format!(
        "ALTER TABLE review_tasks SET (autovacuum_enabled = false);
         ANALYZE review_tasks;
         INSERT INTO runners (id, name) VALUES ('head', 'head');
         INSERT INTO reviews (id, project_id, project_name, mr_iid, mr_title, mr_url, source_branch,
                              target_branch, ai_provider, ai_model, triggered_by, head_commit_sha)
              SELECT md5('review' || n)::uuid, '{p}', 'p', n, 't', 'u', 's', 'm', 'openai', 'x',
                     'auto', 'h' FROM generate_series(1, 1000) n;
         INSERT INTO review_rounds (id, review_id, round_number, head_sha)
              SELECT md5('round' || n)::uuid, md5('review' || n)::uuid, 1, 'h'
                FROM generate_series(1, 1000) n;
         INSERT INTO review_tasks (triggered_by, project_id, mr_iid, head_sha, status, created_at, assignment)
              SELECT 'auto', '{p}', n, lpad(to_hex(n), 40, '0'), 'queued',
                     now() - interval '1 hour' + n * interval '1 ms',
                     jsonb_build_object('reviewId', md5('review' || n)::uuid,
                         'roundId', md5('round' || n)::uuid, 'roundNumber', 1, 'baseSha', 'b',
                         'headSha', lpad(to_hex(n), 40, '0'), 'files', '[]'::jsonb,
                         'appliedRuleIds', '[]'::jsonb,
                         'prepared', jsonb_build_object('at', now(), 'attempts', 0,
                             'payload', jsonb_build_object('mrTitle', 't', 'sourceBranch', 's',
                                 'targetBranch', 'm', 'systemPrompt', 'p', 'rules', '[]'::jsonb)))
                FROM generate_series(1, 1000) n;",
        p = project.id
    ))
    .await
    .unwrap();
    // A pool of its own, named: closing it makes its sessions report their
    // statistics, and they can be seen to have ended.
    let sep = if db.url().contains('?') { '&' } else { '?' };
    let claims_url = format!("{}{sep}application_name=claims-under-test", db.url());
    let claims_pool = reviewd_store_postgres::connect(&claims_url, 4, Duration::from_secs(10))
        .await
        .unwrap();
    let runners = reviewd_store_postgres::PgRunnerRepository::new(claims_pool);
    let (lease, retry) = (Duration::from_secs(60), Duration::ZERO);
    let fresh = chrono::Utc::now() - chrono::Duration::minutes(5);
    // Queued (preparation not looked at), then prepared: the two candidate queries.
    for fresh_after in [None, Some(fresh)] {
        let batch = runners
            .claim_ready("head", uuid::Uuid::nil(), 1, lease, retry, fresh_after)
            .await
            .unwrap();
        let ClaimBatch::Claimed(rows) = batch else {
            panic!("a task claimed: {batch:?}")
        };
        assert_eq!(rows.len(), 1, "one task claimed");
        assert_eq!(rows[0].prepared.is_some(), fresh_after.is_some());
    }
    drop(runners);
    for _ in 0..100 {
        let open: Count = diesel::sql_query(
            "SELECT count(*)::bigint AS n FROM pg_stat_activity
              WHERE application_name = 'claims-under-test'",
        )
        .get_result(&mut conn)
        .await
        .unwrap();
        if open.n == 0 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    // Read once both candidate scans are reported: every tuple of the table read by
    // any scan, sequential or through any index, counts.
    #[derive(diesel::QueryableByName)]
    struct Reads {
        #[diesel(sql_type = diesel::sql_types::BigInt)]
        scans: i64,
        #[diesel(sql_type = diesel::sql_types::BigInt)]
        tuples: i64,
    }
    let mut reads = Reads {
        scans: 0,
        tuples: 0,
    };
    for _ in 0..100 {
        reads = diesel::sql_query(
            "SELECT (COALESCE(t.seq_scan, 0)
                     + (SELECT COALESCE(sum(idx_scan), 0) FROM pg_stat_user_indexes
                         WHERE relid = t.relid
                           AND indexrelname IN ('review_tasks_queued_idx',
                                                'review_tasks_prepared_idx')))::bigint AS scans,
                    (COALESCE(t.seq_tup_read, 0)
                     + (SELECT COALESCE(sum(idx_tup_read), 0) FROM pg_stat_user_indexes
                         WHERE relid = t.relid))::bigint AS tuples
               FROM pg_stat_user_tables t WHERE t.relname = 'review_tasks'",
        )
        .get_result(&mut conn)
        .await
        .unwrap();
        if reads.scans >= 2 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(
        reads.scans >= 2,
        "the claims' scans were never reported ({} of 2)",
        reads.scans
    );
    assert!(
        reads.tuples < 50,
        "two claims read {} tuples of a table with 1,000 queued tasks",
        reads.tuples
    );
}

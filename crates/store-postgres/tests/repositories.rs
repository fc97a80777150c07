//! The Postgres repositories against a real database (one per test), for what the
//! port contract suites (`tests/contract.rs`) cannot reach through the ports.

use reviewd_testkit::TestDb;

#[tokio::test]
async fn a_failed_job_run_is_tried_again_after_a_cool_down_not_on_every_tick() {
    use reviewd_domain::ports::{JobLedger, JobOutcome};
    let db = TestDb::new().await;
    let ledger = reviewd_store_postgres::PgJobLedger::new(db.pool().await);
    let due_since = chrono::Utc::now() - chrono::TimeDelta::hours(1);
    let stale = chrono::TimeDelta::minutes(5);
    let run = ledger
        .begin("backup", "a", due_since, stale)
        .await
        .unwrap()
        .expect("nothing ran this period");
    ledger
        .finish(run, &JobOutcome::Failed("pg_dump exited with 1".into()))
        .await
        .unwrap();
    assert_eq!(
        ledger.begin("backup", "b", due_since, stale).await.unwrap(),
        None,
        "a fresh failure blocks for the cool-down"
    );
    // A minute later the job is tried again.
    let pool = db.pool().await;
    let mut conn = pool.get().await.unwrap();
    diesel_async::RunQueryDsl::execute(
        diesel::sql_query("UPDATE job_runs SET finished_at = now() - interval '61 seconds'"),
        &mut conn,
    )
    .await
    .unwrap();
    assert!(
        ledger
            .begin("backup", "b", due_since, stale)
            .await
            .unwrap()
            .is_some()
    );
}

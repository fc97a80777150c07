//! Migrations go up, all the way down, and up again to the identical schema.
#![expect(
    clippy::unwrap_used,
    reason = "tests: a panic fails the test, with its message"
)]

use diesel::QueryableByName;
use diesel::sql_types::Text;
use diesel_async::RunQueryDsl;
use reviewd_store_postgres::{revert_all_migrations, run_migrations};
use reviewd_testkit::TestDb;

#[derive(QueryableByName)]
struct Snapshot {
    #[diesel(sql_type = Text)]
    snapshot: String,
}

/// Columns, indexes, constraints and functions of the public schema, one per line.
async fn snapshot(db: &TestDb) -> String {
    let pool = db.pool().await;
    let mut conn = pool.get().await.unwrap();
    let row: Snapshot = diesel::sql_query(
        "SELECT coalesce(string_agg(line, E'\\n' ORDER BY line), '') AS snapshot FROM (
           SELECT format('col %s.%s %s %s %s', table_name, column_name, data_type, is_nullable,
                         coalesce(column_default, '')) AS line
             FROM information_schema.columns
            WHERE table_schema = 'public' AND table_name <> '__diesel_schema_migrations'
           UNION ALL
           SELECT format('idx %s', indexdef) FROM pg_indexes
            WHERE schemaname = 'public' AND tablename <> '__diesel_schema_migrations'
           UNION ALL
           SELECT format('con %s %s', c.conname, pg_get_constraintdef(c.oid))
             FROM pg_constraint c JOIN pg_class t ON t.oid = c.conrelid
            WHERE c.connamespace = 'public'::regnamespace AND t.relname <> '__diesel_schema_migrations'
           UNION ALL
           SELECT format('fn %s', proname) FROM pg_proc WHERE pronamespace = 'public'::regnamespace
         ) lines",
    )
    .get_result(&mut conn)
    .await
    .unwrap();
    row.snapshot
}

#[tokio::test]
async fn up_down_up_gives_the_same_schema() {
    let db = TestDb::new().await;
    let first = snapshot(&db).await;
    assert!(
        first.contains("col reviews.head_commit_sha"),
        "the template is migrated"
    );

    let reverted = revert_all_migrations(db.url()).await.unwrap();
    assert!(reverted >= 6);
    assert_eq!(
        snapshot(&db).await,
        "",
        "down migrations leave nothing behind"
    );

    let applied = run_migrations(db.url()).await.unwrap();
    assert_eq!(applied.len(), reverted);
    assert_eq!(snapshot(&db).await, first);
    assert!(
        run_migrations(db.url()).await.unwrap().is_empty(),
        "a second run applies nothing"
    );
}

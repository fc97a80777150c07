//! A backlog the statistics have not seen is claimed from its head.

use super::*;

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

//! The rollups behind the review list's stats, the overview's ratings and the
//! notification history's total (migrations `list_stats`, `project_rollups` and
//! `rating_rollup`) against a raw recount of the rows,
//! after inserts, updates and deletes of reviews, their AI calls and notifications;
//! and the list's stats and cost chart, whose filters split into whole days (rollups)
//! and partial ones (rows), against the same figures counted from the rows.
#![expect(
    clippy::unwrap_used,
    reason = "tests: a panic fails the test, with its message"
)]

use chrono::{DateTime, Duration, NaiveDate, Utc};
use diesel::QueryableByName;
use diesel::sql_types::{BigInt, Date, Double, Nullable, Text, Timestamptz, Uuid as SqlUuid};
use diesel_async::RunQueryDsl;
use reviewd_domain::PageRequest;
use reviewd_domain::model::notification::HistoryFilter;
use reviewd_domain::model::review_views::{COST_DAYS, ReviewFilter};
use reviewd_domain::ports::{NotificationRepository, ReviewQueries};
use reviewd_store_postgres::{PgNotificationRepository, PgPool, PgReviewQueries};
use reviewd_testkit::{TestDb, execute_sql};

/// The seed's second project: 2 of every 5 reviews.
const PROJECT_Q: uuid::Uuid = uuid::Uuid::from_u128(0x0000_0000_0000_4000_8000_0000_0000_0003);

/// 60 reviews over the last 5 days (a few hours apart, so days are partial at the
/// filters' edges), 2 priced calls and 1 notification each.
const SEED: &str = "
INSERT INTO platform_configs (id, name, platform_type, base_url)
     VALUES ('00000000-0000-4000-8000-000000000001', 'g', 'hostA', 'https://git.example.com');
INSERT INTO projects (id, platform_config_id, platform_type, platform_project_id, name, full_path, web_url)
     VALUES ('00000000-0000-4000-8000-000000000002', '00000000-0000-4000-8000-000000000001',
             'hostA', '1', 'p', 'g/p', 'https://git.example.com/g/p'),
            ('00000000-0000-4000-8000-000000000003', '00000000-0000-4000-8000-000000000001',
             'hostA', '2', 'q', 'g/q', 'https://git.example.com/g/q');
INSERT INTO reviews (id, project_id, project_name, mr_iid, mr_title, mr_url, source_branch,
                     target_branch, ai_provider, ai_model, triggered_by, head_commit_sha, status,
                     score, overall_rating, comment_count, created_at)
SELECT md5('r' || n)::uuid,
       CASE WHEN n % 5 < 3 THEN '00000000-0000-4000-8000-000000000002'
            ELSE '00000000-0000-4000-8000-000000000003' END::uuid,
       'p', n, 't', 'u', 's', 'main',
       'a', 'm', CASE WHEN n % 4 = 0 THEN 'manual' ELSE 'auto' END, 'abc',
       (ARRAY['pending', 'completed', 'failed'])[1 + n % 3],
       CASE WHEN n % 3 = 1 THEN 40 + n END, (ARRAY['A', 'B', 'C', NULL])[1 + n % 4], n % 7,
       now() - n * interval '2 hours'
FROM generate_series(1, 60) n;
INSERT INTO ai_call_logs (review_id, provider, model, status, cost_usd, created_at)
SELECT md5('r' || n)::uuid, 'a', 'm', 'success', CASE WHEN k = 0 THEN 0.125 * n END,
       now() - n * interval '2 hours' + k * interval '1 hour'
FROM generate_series(1, 60) n, generate_series(0, 1) k;
INSERT INTO notification_history (review_id, channel, notification_type, status, created_at)
SELECT md5('r' || n)::uuid, (ARRAY['email', 'webhook'])[1 + n % 2], 'review_completed',
       (ARRAY['pending', 'sent'])[1 + n % 2], now() - n * interval '2 hours'
FROM generate_series(1, 60) n;
";

const MUTATIONS: &str = "
UPDATE reviews SET status = 'completed', score = 90, comment_count = comment_count + 1
 WHERE status = 'pending' AND mr_iid % 2 = 0;
UPDATE reviews SET triggered_by = 'manual' WHERE mr_iid % 5 = 0;
UPDATE reviews SET created_at = created_at - interval '1 day' WHERE mr_iid % 11 = 0;
UPDATE reviews SET summary = 'only text' WHERE mr_iid % 3 = 0;
UPDATE reviews SET overall_rating = 'D' WHERE mr_iid % 7 = 0;
UPDATE reviews SET overall_rating = NULL WHERE mr_iid % 13 = 1;
UPDATE reviews SET status = 'failed' WHERE mr_iid IN (4, 22, 25);
UPDATE reviews SET project_id = '00000000-0000-4000-8000-000000000003' WHERE mr_iid IN (1, 2, 16);
INSERT INTO ai_call_logs (review_id, provider, model, status, cost_usd)
SELECT id, 'a', 'm', 'success', 0.5 FROM reviews WHERE mr_iid % 6 = 1;
UPDATE ai_call_logs SET cost_usd = cost_usd * 3 WHERE review_id = md5('r7')::uuid;
UPDATE ai_call_logs SET review_id = NULL WHERE review_id = md5('r8')::uuid;
DELETE FROM ai_call_logs WHERE review_id = md5('r9')::uuid;
DELETE FROM reviews WHERE mr_iid IN (10, 20, 31);
UPDATE notification_history SET status = 'failed' WHERE status = 'pending' AND created_at > now() - interval '1 day';
UPDATE notification_history SET channel = 'push' WHERE created_at < now() - interval '3 days';
DELETE FROM notification_history WHERE review_id IS NULL;
";

#[derive(QueryableByName)]
struct Mismatches {
    #[diesel(sql_type = BigInt)]
    n: i64,
}

/// Rollup cells (summed over shards) that differ from a recount of the rows, and
/// reviews whose cost is not their calls' sum.
async fn mismatches(pool: &PgPool) -> i64 {
    let mut conn = pool.get().await.unwrap();
    let row: Mismatches = diesel::sql_query(
        "SELECT (SELECT count(*) FROM
           (SELECT reviewd_utc_day(created_at) AS day, status, triggered_by, count(*) AS n,
                   sum(comment_count) AS cm, coalesce(sum(score), 0) AS ss, count(score) AS sc,
                   coalesce(sum(cost_usd), 0) AS cost
              FROM reviews GROUP BY 1, 2, 3) raw
           FULL JOIN
           (SELECT day, status, triggered_by, sum(reviews) AS n, sum(comments) AS cm,
                   sum(score_sum) AS ss, sum(scored) AS sc, sum(cost_usd) AS cost
              FROM review_daily_stats GROUP BY 1, 2, 3 HAVING sum(reviews) <> 0) roll
           USING (day, status, triggered_by)
           WHERE raw.n IS DISTINCT FROM roll.n OR raw.cm IS DISTINCT FROM roll.cm
              OR raw.ss IS DISTINCT FROM roll.ss OR raw.sc IS DISTINCT FROM roll.sc
              OR abs(raw.cost - roll.cost) > 1e-9)
         + (SELECT count(*) FROM
           (SELECT reviewd_utc_day(c.created_at) AS day, reviewd_utc_day(r.created_at) AS rday,
                   r.status, r.triggered_by, count(*) AS calls, sum(c.cost_usd) AS cost
              FROM ai_call_logs c JOIN reviews r ON r.id = c.review_id
             WHERE c.cost_usd IS NOT NULL GROUP BY 1, 2, 3, 4) raw
           FULL JOIN
           (SELECT day, review_day AS rday, status, triggered_by, sum(calls) AS calls,
                   sum(cost_usd) AS cost
              FROM ai_cost_daily GROUP BY 1, 2, 3, 4 HAVING sum(calls) <> 0) roll
           USING (day, rday, status, triggered_by)
           WHERE raw.calls IS DISTINCT FROM roll.calls OR abs(raw.cost - roll.cost) > 1e-9)
         + (SELECT count(*) FROM
           (SELECT project_id, reviewd_utc_day(created_at) AS day, status, triggered_by,
                   count(*) AS n, sum(comment_count) AS cm, coalesce(sum(score), 0) AS ss,
                   count(score) AS sc, coalesce(sum(cost_usd), 0) AS cost
              FROM reviews GROUP BY 1, 2, 3, 4) raw
           FULL JOIN
           (SELECT * FROM (SELECT project_id, day, status, triggered_by, reviews AS n,
                                  comments AS cm, score_sum AS ss, scored AS sc, cost_usd AS cost
                             FROM review_project_daily_stats) p WHERE n <> 0) roll
           USING (project_id, day, status, triggered_by)
           WHERE raw.n IS DISTINCT FROM roll.n OR raw.cm IS DISTINCT FROM roll.cm
              OR raw.ss IS DISTINCT FROM roll.ss OR raw.sc IS DISTINCT FROM roll.sc
              OR abs(raw.cost - roll.cost) > 1e-9)
         + (SELECT count(*) FROM
           (SELECT r.project_id, reviewd_utc_day(c.created_at) AS day,
                   reviewd_utc_day(r.created_at) AS rday, r.status, r.triggered_by,
                   count(*) AS calls, sum(c.cost_usd) AS cost
              FROM ai_call_logs c JOIN reviews r ON r.id = c.review_id
             WHERE c.cost_usd IS NOT NULL GROUP BY 1, 2, 3, 4, 5) raw
           FULL JOIN
           (SELECT project_id, day, review_day AS rday, status, triggered_by, calls,
                   cost_usd AS cost
              FROM ai_cost_project_daily WHERE calls <> 0) roll
           USING (project_id, day, rday, status, triggered_by)
           WHERE raw.calls IS DISTINCT FROM roll.calls OR abs(raw.cost - roll.cost) > 1e-9)
         + (SELECT count(*) FROM
           (SELECT reviewd_utc_day(created_at) AS day, overall_rating, count(*) AS n
              FROM reviews WHERE status = 'completed' AND overall_rating IS NOT NULL
             GROUP BY 1, 2) raw
           FULL JOIN
           (SELECT day, overall_rating, sum(reviews) AS n
              FROM review_daily_ratings GROUP BY 1, 2 HAVING sum(reviews) <> 0) roll
           USING (day, overall_rating)
           WHERE raw.n IS DISTINCT FROM roll.n)
         + (SELECT count(*) FROM
           (SELECT reviewd_utc_day(created_at) AS day, channel, status, notification_type,
                   count(*) AS n
              FROM notification_history GROUP BY 1, 2, 3, 4) raw
           FULL JOIN
           (SELECT day, channel, status, notification_type, sum(deliveries) AS n
              FROM notification_daily_counts GROUP BY 1, 2, 3, 4 HAVING sum(deliveries) <> 0) roll
           USING (day, channel, status, notification_type)
           WHERE raw.n IS DISTINCT FROM roll.n)
         + (SELECT count(*) FROM
             (SELECT r.cost_usd AS kept,
                     (SELECT sum(c.cost_usd) FROM ai_call_logs c WHERE c.review_id = r.id) AS sum
                FROM reviews r) k
             WHERE (k.kept IS NULL) <> (k.sum IS NULL) OR abs(k.kept - k.sum) > 1e-9)
         AS n",
    )
    .get_result(&mut conn)
    .await
    .unwrap();
    row.n
}

#[derive(QueryableByName, Debug, PartialEq)]
struct Recount {
    #[diesel(sql_type = BigInt)]
    total: i64,
    #[diesel(sql_type = BigInt)]
    pending: i64,
    #[diesel(sql_type = BigInt)]
    comments: i64,
    #[diesel(sql_type = Nullable<Double>)]
    average: Option<f64>,
    #[diesel(sql_type = Double)]
    cost: f64,
}

/// The list's stats as the rows give them (the query the rollups replaced).
async fn recount(pool: &PgPool, f: &ReviewFilter) -> Recount {
    let mut conn = pool.get().await.unwrap();
    diesel::sql_query(
        "SELECT count(*) AS total, count(*) FILTER (WHERE status = 'pending') AS pending,
                coalesce(sum(comment_count), 0)::bigint AS comments,
                round(avg(score)::numeric, 1)::double precision AS average,
                coalesce(sum((SELECT sum(c.cost_usd) FROM ai_call_logs c
                              WHERE c.review_id = reviews.id)), 0)::double precision AS cost
           FROM reviews
          WHERE ($1::text IS NULL OR status = $1) AND ($2::text IS NULL OR triggered_by = $2)
            AND ($3::timestamptz IS NULL OR created_at >= $3)
            AND ($4::timestamptz IS NULL OR created_at <= $4)
            AND ($5::uuid IS NULL OR project_id = $5)",
    )
    .bind::<Nullable<Text>, _>(f.status.map(|s| s.as_str()))
    .bind::<Nullable<Text>, _>(f.triggered_by.map(|t| t.as_str()))
    .bind::<Nullable<Timestamptz>, _>(f.start_date)
    .bind::<Nullable<Timestamptz>, _>(f.end_date)
    .bind::<Nullable<SqlUuid>, _>(f.project_id.map(uuid::Uuid::from))
    .get_result(&mut conn)
    .await
    .unwrap()
}

#[derive(QueryableByName, Debug)]
struct DayCostRaw {
    #[diesel(sql_type = Date)]
    day: NaiveDate,
    #[diesel(sql_type = Double)]
    cost: f64,
}

/// The cost chart as the rows give it: the priced calls of the filter's reviews over
/// the last `COST_DAYS` UTC days, per day of the call.
async fn recount_cost_by_day(pool: &PgPool, f: &ReviewFilter) -> Vec<DayCostRaw> {
    let mut conn = pool.get().await.unwrap();
    diesel::sql_query(format!(
        "SELECT (c.created_at AT TIME ZONE 'UTC')::date AS day, sum(c.cost_usd) AS cost
           FROM ai_call_logs c JOIN reviews r ON r.id = c.review_id
          WHERE ($1::text IS NULL OR r.status = $1) AND ($2::text IS NULL OR r.triggered_by = $2)
            AND ($3::timestamptz IS NULL OR r.created_at >= $3)
            AND ($4::timestamptz IS NULL OR r.created_at <= $4)
            AND ($5::uuid IS NULL OR r.project_id = $5)
            AND c.cost_usd IS NOT NULL
            AND c.created_at >= date_trunc('day', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'
                                - interval '{} days'
          GROUP BY 1 ORDER BY 1",
        COST_DAYS - 1
    ))
    .bind::<Nullable<Text>, _>(f.status.map(|s| s.as_str()))
    .bind::<Nullable<Text>, _>(f.triggered_by.map(|t| t.as_str()))
    .bind::<Nullable<Timestamptz>, _>(f.start_date)
    .bind::<Nullable<Timestamptz>, _>(f.end_date)
    .bind::<Nullable<SqlUuid>, _>(f.project_id.map(uuid::Uuid::from))
    .load(&mut conn)
    .await
    .unwrap()
}

fn filters(now: DateTime<Utc>) -> Vec<ReviewFilter> {
    let midnight = now.date_naive().and_hms_opt(0, 0, 0).unwrap().and_utc();
    let windows = [
        (None, None),
        (Some(midnight), None),
        (
            Some(midnight - Duration::days(2)),
            Some(midnight - Duration::hours(3)),
        ),
        (
            Some(now - Duration::hours(50)),
            Some(now - Duration::hours(7)),
        ),
        (
            Some(now - Duration::hours(5)),
            Some(now - Duration::hours(1)),
        ),
    ];
    let mut out = Vec::new();
    for (start_date, end_date) in windows {
        for status in [None, Some("completed"), Some("pending")] {
            for triggered_by in [None, Some("manual")] {
                for project_id in [None, Some(PROJECT_Q)] {
                    out.push(ReviewFilter {
                        status: status.map(|s: &str| s.parse().unwrap()),
                        triggered_by: triggered_by.map(|t: &str| t.parse().unwrap()),
                        start_date,
                        end_date,
                        project_id: project_id.map(Into::into),
                        ..ReviewFilter::default()
                    });
                }
            }
        }
    }
    out
}

async fn assert_stats_match_rows(pool: &PgPool) {
    let queries = PgReviewQueries::new(pool.clone());
    for f in filters(Utc::now()) {
        let (page, stats) = queries.list(&f, PageRequest::new(1, 5, 100)).await.unwrap();
        let raw = recount(pool, &f).await;
        let got = Recount {
            total: i64::try_from(stats.total).unwrap(),
            pending: i64::try_from(stats.pending).unwrap(),
            comments: i64::try_from(stats.total_comments).unwrap(),
            average: stats.average_score,
            cost: raw.cost,
        };
        assert_eq!(got, raw, "{f:?}");
        assert!(
            (stats.total_cost_usd - raw.cost).abs() < 1e-9,
            "{f:?}: {stats:?} vs {raw:?}"
        );
        assert_eq!(page.total, stats.total, "{f:?}");
        let raw_days = recount_cost_by_day(pool, &f).await;
        assert_eq!(
            stats.cost_by_day.len(),
            raw_days.len(),
            "{f:?}: {:?} vs {raw_days:?}",
            stats.cost_by_day
        );
        for (got, raw) in stats.cost_by_day.iter().zip(&raw_days) {
            assert!(
                got.date == raw.day && (got.cost_usd - raw.cost).abs() < 1e-9,
                "{f:?}: {got:?} vs {raw:?}"
            );
        }
    }
}

#[derive(QueryableByName)]
struct RatingCount {
    #[diesel(sql_type = Text)]
    overall_rating: String,
    #[diesel(sql_type = BigInt)]
    n: i64,
}

/// The overview's ratings chart, from a midnight (the rollup) and from an hour
/// within a day (the rows), against the completed reviews counted by rating.
async fn assert_ratings_match_rows(pool: &PgPool) {
    let queries = PgReviewQueries::new(pool.clone());
    let midnight = Utc::now()
        .date_naive()
        .and_hms_opt(0, 0, 0)
        .unwrap()
        .and_utc();
    for since in [
        midnight - Duration::days(3),
        midnight - Duration::days(30),
        Utc::now() - Duration::hours(40),
    ] {
        let activity = queries.activity(since, 1).await.unwrap();
        let mut conn = pool.get().await.unwrap();
        let raw: Vec<RatingCount> = diesel::sql_query(
            "SELECT overall_rating, count(*) AS n FROM reviews
              WHERE status = 'completed' AND overall_rating IS NOT NULL AND created_at >= $1
              GROUP BY 1 ORDER BY 1",
        )
        .bind::<Timestamptz, _>(since)
        .load(&mut conn)
        .await
        .unwrap();
        let raw: Vec<(String, u64)> = raw
            .into_iter()
            .map(|r| (r.overall_rating, u64::try_from(r.n).unwrap()))
            .collect();
        assert!(
            raw.len() >= 3,
            "the seed rates reviews of every day: {raw:?}"
        );
        assert_eq!(activity.ratings, raw, "since {since}");
    }
}

async fn assert_notification_totals_match_rows(pool: &PgPool) {
    let repo =
        PgNotificationRepository::new(pool.clone(), reviewd_crypto::SecretBox::from_key(&[7; 32]));
    let now = Utc::now();
    let midnight = now.date_naive().and_hms_opt(0, 0, 0).unwrap().and_utc();
    for (start, end) in [
        (None, None),
        (Some(midnight - Duration::days(1)), None),
        (
            Some(now - Duration::hours(30)),
            Some(now - Duration::hours(3)),
        ),
    ] {
        let filter = HistoryFilter {
            start,
            end,
            ..HistoryFilter::default()
        };
        let page = repo
            .history(&filter, PageRequest::new(1, 5, 100))
            .await
            .unwrap();
        let mut conn = pool.get().await.unwrap();
        let raw: Mismatches = diesel::sql_query(
            "SELECT count(*) AS n FROM notification_history
              WHERE ($1::timestamptz IS NULL OR created_at >= $1)
                AND ($2::timestamptz IS NULL OR created_at < $2)",
        )
        .bind::<Nullable<Timestamptz>, _>(start)
        .bind::<Nullable<Timestamptz>, _>(end)
        .get_result(&mut conn)
        .await
        .unwrap();
        assert_eq!(
            i64::try_from(page.total).unwrap(),
            raw.n,
            "{start:?}..{end:?}"
        );
    }
}

#[tokio::test]
async fn rollups_equal_a_recount_of_the_rows_after_inserts_updates_and_deletes() {
    let db = TestDb::new().await;
    let pool = db.pool().await;
    execute_sql(&pool, SEED).await;
    assert_eq!(mismatches(&pool).await, 0, "after the inserts");
    assert_stats_match_rows(&pool).await;
    assert_ratings_match_rows(&pool).await;
    assert_notification_totals_match_rows(&pool).await;

    execute_sql(&pool, MUTATIONS).await;
    assert_eq!(mismatches(&pool).await, 0, "after the updates and deletes");
    assert_stats_match_rows(&pool).await;
    assert_ratings_match_rows(&pool).await;
    assert_notification_totals_match_rows(&pool).await;

    // The backfill (and the bench seed's rebuild) recounts to the same cells.
    // Emptied first, so that only the rebuild can make them right again.
    execute_sql(
        &pool,
        "TRUNCATE review_daily_stats, review_daily_ratings; SELECT reviewd_rebuild_list_stats();",
    )
    .await;
    assert_eq!(mismatches(&pool).await, 0, "after a rebuild");
    assert_stats_match_rows(&pool).await;
    assert_ratings_match_rows(&pool).await;
}

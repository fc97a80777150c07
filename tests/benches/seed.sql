-- The lists' bench data: run by scripts/bench-seed.sh (psql -v scale=F -v anchor=TIMESTAMPTZ).
-- At scale 1: 5k projects under one hostA config, 1M reviews over 365 days (5 % on one big
-- project), per review 1 round, 3 files, 10 comments, 3 priced AI calls, 1 completed task and
-- 1 notification. Everything is generated here (INSERT ... SELECT generate_series): no client
-- round trips. Ids are md5-based uuids of a letter and the row's number, so every child row
-- computes its parents' ids (and its review's time) from its own number, without joins.
--
-- Review n (1 = newest) was created at anchor - (n - 1) * step, step = 365 days / N.
-- Status: 90 % completed, 7 % failed, and 3 % pending among the reviews of the last 2 days
-- only (an older review is never still pending); older ones of that 3 % are completed.
\set ON_ERROR_STOP on
\timing off

SELECT greatest(round(1000000 * :scale)::bigint, 1000) AS n_reviews,
       greatest(round(5000 * :scale)::bigint, 10) AS n_projects \gset
SELECT (interval '365 days' / :n_reviews) AS step,
       ceil(:n_reviews * 2 / 365.0)::bigint AS recent \gset
\echo seeding :n_reviews reviews over :n_projects projects (step :step, anchor :anchor)

-- Bulk-load settings: big sorts for the index builds, no per-row FK or trigger work (every
-- id is computed consistently; the rollups are rebuilt at the end). Replica mode needs a
-- superuser: without one the load still works, only slower.
SET maintenance_work_mem = '1GB';
SET work_mem = '256MB';
SET max_parallel_maintenance_workers = 1;
SET synchronous_commit = off;
DO $$
BEGIN
    PERFORM set_config('session_replication_role', 'replica', false);
EXCEPTION WHEN insufficient_privilege THEN
    RAISE NOTICE 'not a superuser: foreign keys are checked row by row';
END $$;

BEGIN;

-- TRUNCATE in the load's transaction: with wal_level=minimal the loads skip the WAL.
TRUNCATE platform_configs, projects, reviews, review_rounds, review_files, review_comments,
    ai_call_logs, review_tasks, notification_history CASCADE;

-- Secondary indexes are dropped for the load and rebuilt from their saved definitions, so the
-- script follows the migrations without naming an index. Indexes that back a constraint
-- (primary keys, UNIQUE) stay.
CREATE TEMP TABLE seed_indexes ON COMMIT DROP AS
SELECT i.indexrelid::regclass::text AS name, pg_get_indexdef(i.indexrelid) AS def
FROM pg_index i
JOIN pg_class t ON t.oid = i.indrelid
JOIN pg_namespace ns ON ns.oid = t.relnamespace
WHERE ns.nspname = current_schema()
  AND t.relname IN ('projects', 'reviews', 'review_rounds', 'review_files', 'review_comments',
                    'ai_call_logs', 'review_tasks', 'notification_history')
  AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = i.indexrelid);
SELECT format('DROP INDEX %s', name) FROM seed_indexes \gexec

\echo platform config and projects
INSERT INTO platform_configs (id, name, platform_type, base_url, is_default)
VALUES (md5('platform')::uuid, 'bench', 'hostA', 'http://127.0.0.1:9', true);

-- Project 1 is the big one (5 % of the reviews). Names share ten words, so a search for a
-- word matches a tenth of the projects and a search for a whole name matches one.
INSERT INTO projects (id, platform_config_id, platform_type, platform_project_id, name, full_path,
                      web_url, created_at)
SELECT md5('p' || p)::uuid, md5('platform')::uuid, 'hostA', p::text, name,
       'group-' || (p % 50) || '/' || name, 'http://127.0.0.1:9/group-' || (p % 50) || '/' || name,
       :'anchor'::timestamptz - interval '400 days' + p * interval '1 minute'
FROM (SELECT p, CASE WHEN p = 1 THEN 'monolith'
                     ELSE (ARRAY['api', 'web', 'core', 'billing', 'auth', 'search', 'mobile',
                                 'infra', 'data', 'docs'])[1 + p % 10] || '-service-' || p
                END AS name
      FROM generate_series(1, :n_projects) p) s;

\echo reviews
INSERT INTO reviews (id, project_id, project_name, mr_iid, mr_title, mr_url, source_branch,
                     target_branch, author_username, status, ai_provider, ai_model, comment_count,
                     triggered_by, overall_rating, score, summary, head_commit_sha, round_number,
                     reviewed_lines, error_message, created_at, updated_at, started_at,
                     completed_at, cost_usd)
SELECT md5('r' || n)::uuid, md5('p' || project)::uuid, pname, n, 'Change ' || n,
       'http://127.0.0.1:9/x/-/merge_requests/' || n, 'feature/' || n, 'main', 'dev' || (n % 200),
       status, 'providerA', 'model-a', 10, CASE WHEN n % 10 = 0 THEN 'manual' ELSE 'auto' END,
       CASE WHEN status = 'completed' THEN
           CASE WHEN score >= 90 THEN 'A' WHEN score >= 80 THEN 'B' WHEN score >= 70 THEN 'C'
                WHEN score >= 60 THEN 'D' ELSE 'F' END END,
       CASE WHEN status = 'completed' THEN score END,
       CASE WHEN status = 'completed' THEN 'Summary of change ' || n END,
       md5('h' || n), 1, 120 + n % 400,
       CASE WHEN status = 'failed' THEN 'provider error' END,
       at, at + interval '90 seconds', at + interval '2 seconds',
       CASE WHEN status <> 'pending' THEN at + interval '90 seconds' END,
       -- The sum of its three calls' costs (see the calls below), added in their order.
       (SELECT sum((((1000 + (m * 13) % 3000) * 3.0 + (100 + (m * 7) % 500) * 15.0) / 1000000)::float8)
        FROM generate_series(3 * n - 2, 3 * n) m)
FROM (SELECT n, project, at, 40 + (n * 37) % 61 AS score,
             CASE WHEN project = 1 THEN 'monolith'
                  ELSE (ARRAY['api', 'web', 'core', 'billing', 'auth', 'search', 'mobile',
                              'infra', 'data', 'docs'])[1 + project % 10] || '-service-' || project
             END AS pname,
             CASE WHEN n % 100 < 90 THEN 'completed'
                  WHEN n % 100 < 97 THEN 'failed'
                  WHEN n <= :recent THEN 'pending'
                  ELSE 'completed' END AS status
      FROM (SELECT n,
                   CASE WHEN n % 20 = 0 THEN 1 ELSE 2 + (n * 7919) % (:n_projects - 1) END AS project,
                   :'anchor'::timestamptz - (n - 1) * :'step'::interval AS at
            FROM generate_series(1, :n_reviews::bigint) n) g) s;

\echo rounds
INSERT INTO review_rounds (id, review_id, round_number, head_sha, file_count, comment_count,
                           created_at, completed_at)
SELECT md5('o' || n)::uuid, md5('r' || n)::uuid, 1, md5('h' || n), 3, 10,
       :'anchor'::timestamptz - (n - 1) * :'step'::interval + interval '2 seconds',
       :'anchor'::timestamptz - (n - 1) * :'step'::interval + interval '90 seconds'
FROM generate_series(1, :n_reviews::bigint) n;

-- File m is file k = (m - 1) % 3 of review (m - 1) / 3 + 1; it carries comments j with
-- j % 3 = k, so 4, 3 and 3 of the review's 10.
\echo files
INSERT INTO review_files (id, review_id, round_id, file_path, change_type, status, summary,
                          comment_count, content_hash, attempts, started_at, completed_at,
                          created_at, updated_at)
SELECT md5('f' || m)::uuid, md5('r' || n)::uuid, md5('o' || n)::uuid, 'src/module_' || k || '.rs',
       'modified', 'completed', 'Looks fine apart from the comments.', CASE WHEN k = 0 THEN 4 ELSE 3 END,
       md5('c' || m), 1, at + interval '3 seconds', at + interval '60 seconds', at + interval '2 seconds',
       at + interval '60 seconds'
FROM (SELECT m, (m - 1) / 3 + 1 AS n, (m - 1) % 3 AS k,
             :'anchor'::timestamptz - ((m - 1) / 3) * :'step'::interval AS at
      FROM generate_series(1, 3 * :n_reviews::bigint) m) s;

\echo comments
INSERT INTO review_comments (id, review_id, round_id, file_id, file_path, line_number, severity,
                             message, fingerprint, platform_comment_id, posted_at, created_at)
SELECT md5('m' || c)::uuid, md5('r' || n)::uuid, md5('o' || n)::uuid,
       md5('f' || (3 * (n - 1) + j % 3 + 1))::uuid, 'src/module_' || (j % 3) || '.rs', 10 + j * 7,
       (ARRAY['info', 'warning', 'error'])[1 + c % 3],
       'Comment ' || j || ': the error is dropped here; return it to the caller.', md5('m' || c),
       'note-' || c, at + interval '80 seconds', at + interval '60 seconds' + j * interval '1 second'
FROM (SELECT c, (c - 1) / 10 + 1 AS n, (c - 1) % 10 AS j,
             :'anchor'::timestamptz - ((c - 1) / 10) * :'step'::interval AS at
      FROM generate_series(1, 10 * :n_reviews::bigint) c) s;

-- Call m is the call of file k of review n. Prices: 3 and 15 USD per million tokens.
\echo ai calls
INSERT INTO ai_call_logs (id, review_id, file_path, provider, model, status, duration_ms,
                          prompt_tokens, completion_tokens, total_tokens, error_message, created_at,
                          cost_usd)
SELECT md5('a' || m)::uuid, md5('r' || n)::uuid, 'src/module_' || k || '.rs', 'providerA', 'model-a',
       CASE WHEN failed THEN 'failed' ELSE 'success' END, 800 + m % 2000, prompt, completion,
       prompt + completion, CASE WHEN failed THEN 'provider error' END,
       at + interval '5 seconds' + k * interval '10 seconds',
       (prompt * 3.0 + completion * 15.0) / 1000000
FROM (SELECT m, n, k, at, n % 100 BETWEEN 90 AND 96 AND k = 2 AS failed,
             1000 + (m * 13) % 3000 AS prompt, 100 + (m * 7) % 500 AS completion
      FROM (SELECT m, (m - 1) / 3 + 1 AS n, (m - 1) % 3 AS k,
                   :'anchor'::timestamptz - ((m - 1) / 3) * :'step'::interval AS at
            FROM generate_series(1, 3 * :n_reviews::bigint) m) g) s;

\echo tasks
INSERT INTO review_tasks (id, triggered_by, project_id, review_id, mr_iid, head_sha, status,
                          attempts, created_at, updated_at, started_at, completed_at)
SELECT md5('t' || n)::uuid, CASE WHEN n % 10 = 0 THEN 'manual' ELSE 'auto' END,
       md5('p' || CASE WHEN n % 20 = 0 THEN 1 ELSE 2 + (n * 7919) % (:n_projects - 1) END)::uuid,
       md5('r' || n)::uuid, n, md5('h' || n), 'completed', 1, at - interval '1 second',
       at + interval '90 seconds', at, at + interval '90 seconds'
FROM (SELECT n, :'anchor'::timestamptz - (n - 1) * :'step'::interval AS at
      FROM generate_series(1, :n_reviews::bigint) n) s;

\echo notifications
INSERT INTO notification_history (id, review_id, channel, notification_type, recipient, status,
                                  attempts, payload, sent_at, created_at, updated_at)
SELECT md5('n' || n)::uuid, md5('r' || n)::uuid, (ARRAY['email', 'webhook', 'chatA', 'push'])[1 + n % 4],
       CASE WHEN n % 100 BETWEEN 90 AND 96 THEN 'review_failed' ELSE 'review_completed' END,
       'ops@example.com', 'sent', 1, jsonb_build_object('reviewId', md5('r' || n)::uuid),
       at + interval '95 seconds', at + interval '95 seconds', at + interval '95 seconds'
FROM (SELECT n, :'anchor'::timestamptz - (n - 1) * :'step'::interval AS at
      FROM generate_series(1, :n_reviews::bigint) n) s;

-- The rollups that triggers (off above) keep are recounted from the loaded rows, before the
-- indexes come back (the reviews' costs computed above make its update find nothing to do).
\echo rebuilding rollups
SELECT reviewd_rebuild_list_stats();

\echo rebuilding secondary indexes
SELECT def FROM seed_indexes \gexec

COMMIT;

RESET session_replication_role;
\echo vacuum analyze
VACUUM (ANALYZE) platform_configs, projects, reviews, review_rounds, review_files,
    review_comments, ai_call_logs, review_tasks, notification_history;
-- A second pass (it skips the pages already all-visible): at scale 1 the first left about
-- half of the reviews' pages not all-visible, and the project stats' index-only scan then
-- read the heap (29 ms instead of 7).
VACUUM platform_configs, projects, reviews, review_rounds, review_files, review_comments,
    ai_call_logs, review_tasks, notification_history;

-- The runner claim's transaction as pgbench runs it: the bound beside the suite's claims rows
-- (docs/benchmarks.md, Claims). On a migrated database (`reviewd migrate`):
--
--   INSERT INTO platform_configs (id, name, platform_type, base_url, is_default)
--     VALUES (md5('platform')::uuid, 'bench', 'hostA', 'http://127.0.0.1:9', true);
--   INSERT INTO projects (id, platform_config_id, platform_type, platform_project_id, name, full_path, web_url)
--     VALUES (md5('p1')::uuid, md5('platform')::uuid, 'hostA', '1', 'p', 'g/p', 'http://x/g/p');
--   INSERT INTO runners (id, name, max_concurrent_jobs, last_heartbeat)
--     SELECT 'bench-' || r, 'b', 1000, now() FROM generate_series(0, 49) r;
--   INSERT INTO review_tasks (triggered_by, project_id, mr_iid, head_sha, status)
--     SELECT 'auto', md5('p1')::uuid, n, lpad(to_hex(n), 40, '0'), 'queued' FROM generate_series(1, 20000) n;
--   VACUUM ANALYZE review_tasks;
--
--   pgbench -n -M prepared -c 16 -j 2 -T 8 -r -f tests/benches/claim-pgbench.sql DATABASE
--
-- Measured 2026-11-24: 540 transactions/s before migration …000011_claim_indexes and the
-- `OFFSET 0` (the statements as they were), 2,060/s after, with 16 clients.
\set r random(0, 49)
BEGIN;
SELECT r.max_concurrent_jobs - (SELECT count(*)::int FROM review_tasks WHERE runner_id = r.id AND status IN ('processing', 'in_progress')) AS free FROM runners r WHERE r.id = 'bench-' || :r FOR UPDATE;
SELECT c.id::text AS id, c.project_id, c.mr_iid, NULL::jsonb AS assignment, pg_try_advisory_xact_lock(hashtext('reviewd-mr:' || c.project_id::text || ':' || c.mr_iid::text)) AS locked
 FROM (SELECT t.id, t.project_id, t.mr_iid, t.created_at FROM review_tasks t
        WHERE t.status = 'queued'
          AND (t.error_message IS NULL OR t.updated_at <= now() - (1000 * interval '1 millisecond'))
          AND t.required_tags <@ (SELECT tags FROM runners WHERE id = 'bench-' || :r)
          AND NOT EXISTS (SELECT 1 FROM review_tasks o WHERE o.project_id = t.project_id AND o.mr_iid = t.mr_iid AND o.status IN ('processing', 'in_progress') OFFSET 0)
        ORDER BY t.created_at LIMIT 1 FOR UPDATE SKIP LOCKED) c ORDER BY c.created_at \gset
UPDATE review_tasks SET status='processing', runner_id='bench-' || :r, attempts=attempts+1, claimed_at=now(), lease_expires_at=now()+interval '1 hour' WHERE id = :id AND status='queued';
UPDATE runners SET current_jobs = current_jobs + 1, last_heartbeat = now() WHERE id = 'bench-' || :r;
COMMIT;

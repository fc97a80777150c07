-- Persisted health checks, collected metrics and periodic job runs.

-- check_type: the contract's four values, plus hostB for hostB platform connectivity.
CREATE TABLE health_checks (
    id               UUID PRIMARY KEY DEFAULT gen_random_uuid(),
    check_type       TEXT NOT NULL CHECK (check_type IN ('database', 'hostA', 'hostB', 'ai_provider', 'disk_space')),
    check_name       TEXT NOT NULL,
    status           TEXT NOT NULL CHECK (status IN ('healthy', 'degraded', 'unhealthy')),
    details          JSONB NOT NULL DEFAULT '{}',
    response_time_ms BIGINT NOT NULL DEFAULT 0,
    checked_at       TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX health_checks_checked_at_idx ON health_checks (checked_at DESC);
CREATE INDEX health_checks_type_checked_idx ON health_checks (check_type, checked_at DESC);
CREATE INDEX health_checks_status_checked_idx ON health_checks (status, checked_at DESC);
-- Latest result per check (GET /api/health/status).
CREATE INDEX health_checks_type_name_checked_idx ON health_checks (check_type, check_name, checked_at DESC);

-- instance: host name of the replica that collected the sample.
CREATE TABLE system_metrics (
    id                     UUID PRIMARY KEY DEFAULT gen_random_uuid(),
    instance               TEXT,
    cpu_usage_percent      DOUBLE PRECISION NOT NULL,
    cpu_count              INTEGER NOT NULL,
    memory_used_bytes      BIGINT NOT NULL,
    memory_total_bytes     BIGINT NOT NULL,
    process_memory_bytes   BIGINT,
    uptime_seconds         BIGINT NOT NULL,
    process_uptime_seconds BIGINT,
    load_avg_1             DOUBLE PRECISION,
    load_avg_5             DOUBLE PRECISION,
    load_avg_15            DOUBLE PRECISION,
    disk_used_bytes        BIGINT,
    disk_total_bytes       BIGINT,
    collected_at           TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX system_metrics_collected_at_idx ON system_metrics (collected_at DESC);

CREATE TABLE database_metrics (
    id                  UUID PRIMARY KEY DEFAULT gen_random_uuid(),
    total_connections   INTEGER NOT NULL,
    active_connections  INTEGER NOT NULL,
    idle_connections    INTEGER NOT NULL,
    max_connections     INTEGER,
    database_size_bytes BIGINT NOT NULL,
    query_latency_ms    DOUBLE PRECISION NOT NULL,
    pool_size           INTEGER,
    pool_available      INTEGER,
    collected_at        TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX database_metrics_collected_at_idx ON database_metrics (collected_at DESC);

-- Per-minute (or other bucket) aggregates per route template, method and status code.
-- Replicas add into a bucket with INSERT ... ON CONFLICT (bucket_start, route, method, status_code)
-- DO UPDATE SET request_count = api_metrics.request_count + EXCLUDED.request_count, ...
-- avg_latency_ms is a GENERATED column: read it, never insert or update it.
CREATE TABLE api_metrics (
    id               UUID PRIMARY KEY DEFAULT gen_random_uuid(),
    bucket_start     TIMESTAMPTZ NOT NULL,
    route            TEXT NOT NULL,
    method           TEXT NOT NULL,
    status_code      INTEGER NOT NULL,
    request_count    BIGINT NOT NULL DEFAULT 0,
    error_count      BIGINT NOT NULL DEFAULT 0,
    total_latency_ms DOUBLE PRECISION NOT NULL DEFAULT 0,
    max_latency_ms   DOUBLE PRECISION NOT NULL DEFAULT 0,
    avg_latency_ms   DOUBLE PRECISION GENERATED ALWAYS AS
                     (CASE WHEN request_count > 0 THEN total_latency_ms / request_count ELSE 0 END) STORED NOT NULL,
    CONSTRAINT api_metrics_bucket_key UNIQUE (bucket_start, route, method, status_code)
);
CREATE INDEX api_metrics_bucket_start_idx ON api_metrics (bucket_start DESC);
CREATE INDEX api_metrics_route_bucket_idx ON api_metrics (route, bucket_start DESC);

-- Runs of periodic jobs (heartbeat sweep, digests, backups, metric collection, retention).
CREATE TABLE job_runs (
    id          UUID PRIMARY KEY DEFAULT gen_random_uuid(),
    name        TEXT NOT NULL,
    instance    TEXT,
    status      TEXT NOT NULL DEFAULT 'running' CHECK (status IN ('running', 'succeeded', 'failed', 'skipped')),
    message     TEXT,
    started_at  TIMESTAMPTZ NOT NULL DEFAULT now(),
    finished_at TIMESTAMPTZ
);
CREATE INDEX job_runs_name_started_idx ON job_runs (name, started_at DESC);
CREATE INDEX job_runs_started_at_idx ON job_runs (started_at DESC);

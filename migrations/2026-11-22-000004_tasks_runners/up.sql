-- Runners, the durable record of each queue task (the queue itself is a Redis stream),
-- task execution logs and the webhook delivery dedup record.

CREATE TABLE runners (
    id                   TEXT PRIMARY KEY,
    name                 TEXT NOT NULL,
    version              TEXT NOT NULL DEFAULT 'unknown',
    status               TEXT NOT NULL DEFAULT 'online' CHECK (status IN ('online', 'busy', 'offline')),
    current_jobs         INTEGER NOT NULL DEFAULT 0 CHECK (current_jobs >= 0),
    max_concurrent_jobs  INTEGER NOT NULL DEFAULT 5 CHECK (max_concurrent_jobs >= 1),
    total_jobs_completed BIGINT NOT NULL DEFAULT 0,
    total_jobs_failed    BIGINT NOT NULL DEFAULT 0,
    tags                 TEXT[] NOT NULL DEFAULT '{}',
    api_key_id           UUID REFERENCES api_keys (id) ON DELETE SET NULL,
    last_heartbeat       TIMESTAMPTZ,
    registered_at        TIMESTAMPTZ NOT NULL DEFAULT now(),
    updated_at           TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX runners_last_heartbeat_idx ON runners (last_heartbeat DESC NULLS LAST);
CREATE INDEX runners_api_key_id_idx ON runners (api_key_id);
CREATE TRIGGER runners_set_updated_at BEFORE UPDATE ON runners
    FOR EACH ROW EXECUTE FUNCTION reviewd_set_updated_at();

-- Status values cover the trigger response (queued, failed) and the pipelines filter
-- (pending, in_progress, completed, failed, queued, processing), plus superseded (a newer
-- push to the same MR) and cancelled.
CREATE TABLE review_tasks (
    id                UUID PRIMARY KEY DEFAULT gen_random_uuid(),
    triggered_by      TEXT NOT NULL CHECK (triggered_by IN ('auto', 'manual')),
    project_id        UUID NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    review_id         UUID REFERENCES reviews (id) ON DELETE SET NULL,
    mr_iid            BIGINT NOT NULL,
    head_sha          TEXT,
    status            TEXT NOT NULL DEFAULT 'queued'
                      CHECK (status IN ('pending', 'queued', 'processing', 'in_progress', 'completed',
                                        'failed', 'superseded', 'cancelled')),
    send_to_platform  BOOLEAN NOT NULL DEFAULT true,
    template_id       UUID REFERENCES review_templates (id) ON DELETE SET NULL,
    -- The user who triggered a manual review.
    requested_by      UUID REFERENCES users (id) ON DELETE SET NULL,
    attempts          INTEGER NOT NULL DEFAULT 0,
    max_attempts      INTEGER NOT NULL DEFAULT 3 CHECK (max_attempts >= 1),
    runner_id         TEXT REFERENCES runners (id) ON DELETE SET NULL,
    runner_phase      TEXT CHECK (runner_phase IN ('preparing', 'cloning', 'reviewing', 'submitting')),
    claimed_at        TIMESTAMPTZ,
    heartbeat_at      TIMESTAMPTZ,
    lease_expires_at  TIMESTAMPTZ,
    -- Redis stream entry id of the queued message.
    stream_message_id TEXT,
    -- e.g. "<project>:<mr>:<head_sha>": at most one active task per key.
    dedup_key         TEXT,
    error_message     TEXT,
    result            JSONB,
    metrics           JSONB,
    required_tags     TEXT[] NOT NULL DEFAULT '{}',
    created_at        TIMESTAMPTZ NOT NULL DEFAULT now(),
    updated_at        TIMESTAMPTZ NOT NULL DEFAULT now(),
    started_at        TIMESTAMPTZ,
    completed_at      TIMESTAMPTZ
);
CREATE UNIQUE INDEX review_tasks_active_dedup_key_idx ON review_tasks (dedup_key)
    WHERE dedup_key IS NOT NULL AND status IN ('pending', 'queued', 'processing', 'in_progress');
CREATE INDEX review_tasks_created_at_idx ON review_tasks (created_at DESC);
CREATE INDEX review_tasks_status_created_idx ON review_tasks (status, created_at DESC);
CREATE INDEX review_tasks_project_created_idx ON review_tasks (project_id, created_at DESC);
CREATE INDEX review_tasks_project_mr_idx ON review_tasks (project_id, mr_iid, created_at DESC);
CREATE INDEX review_tasks_triggered_by_created_idx ON review_tasks (triggered_by, created_at DESC);
CREATE INDEX review_tasks_review_id_idx ON review_tasks (review_id);
CREATE INDEX review_tasks_runner_id_idx ON review_tasks (runner_id);
CREATE INDEX review_tasks_template_id_idx ON review_tasks (template_id);
CREATE INDEX review_tasks_requested_by_idx ON review_tasks (requested_by);
-- Sweep of silent workers/runners.
CREATE INDEX review_tasks_active_lease_idx ON review_tasks (lease_expires_at)
    WHERE status IN ('processing', 'in_progress');
CREATE TRIGGER review_tasks_set_updated_at BEFORE UPDATE ON review_tasks
    FOR EACH ROW EXECUTE FUNCTION reviewd_set_updated_at();

CREATE TABLE review_task_logs (
    id         UUID PRIMARY KEY DEFAULT gen_random_uuid(),
    task_id    UUID NOT NULL REFERENCES review_tasks (id) ON DELETE CASCADE,
    line_no    INTEGER NOT NULL,
    message    TEXT NOT NULL,
    created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
    CONSTRAINT review_task_logs_task_line_key UNIQUE (task_id, line_no)
);

-- Durable dedup record of received webhooks (redelivered ones do not queue twice).
CREATE TABLE webhook_deliveries (
    id            UUID PRIMARY KEY DEFAULT gen_random_uuid(),
    platform_type TEXT NOT NULL CHECK (platform_type IN ('hostA', 'hostB')),
    delivery_id   TEXT NOT NULL,
    event         TEXT NOT NULL,
    task_id       UUID REFERENCES review_tasks (id) ON DELETE SET NULL,
    received_at   TIMESTAMPTZ NOT NULL DEFAULT now(),
    CONSTRAINT webhook_deliveries_platform_delivery_key UNIQUE (platform_type, delivery_id)
);
CREATE INDEX webhook_deliveries_received_at_idx ON webhook_deliveries (received_at);
CREATE INDEX webhook_deliveries_task_id_idx ON webhook_deliveries (task_id);

-- Review templates and rules, reviews with their rounds, files, comments, feedback and AI call logs.

-- project_id NULL: a global template; otherwise a template owned by that project.
-- The global default is the one global template with is_default; a project's default is
-- projects.template_id.
CREATE TABLE review_templates (
    id          UUID PRIMARY KEY DEFAULT gen_random_uuid(),
    name        TEXT NOT NULL,
    description TEXT,
    content     TEXT NOT NULL,
    is_default  BOOLEAN NOT NULL DEFAULT false,
    project_id  UUID REFERENCES projects (id) ON DELETE CASCADE,
    created_at  TIMESTAMPTZ NOT NULL DEFAULT now(),
    updated_at  TIMESTAMPTZ NOT NULL DEFAULT now(),
    CONSTRAINT review_templates_default_is_global CHECK (NOT is_default OR project_id IS NULL)
);
CREATE UNIQUE INDEX review_templates_single_default_idx ON review_templates (is_default) WHERE is_default;
CREATE INDEX review_templates_project_id_idx ON review_templates (project_id);
CREATE TRIGGER review_templates_set_updated_at BEFORE UPDATE ON review_templates
    FOR EACH ROW EXECUTE FUNCTION reviewd_set_updated_at();

ALTER TABLE projects
    ADD CONSTRAINT projects_template_id_fkey FOREIGN KEY (template_id)
    REFERENCES review_templates (id) ON DELETE SET NULL;

-- project_id NULL: applies to every project. Higher priority is evaluated earlier.
CREATE TABLE review_rules (
    id                 UUID PRIMARY KEY DEFAULT gen_random_uuid(),
    rule_name          TEXT NOT NULL,
    description        TEXT,
    instructions       TEXT NOT NULL,
    enabled            BOOLEAN NOT NULL DEFAULT true,
    file_type_patterns TEXT[] NOT NULL DEFAULT '{}',
    file_path_patterns TEXT[] NOT NULL DEFAULT '{}',
    priority           INTEGER NOT NULL DEFAULT 0,
    project_id         UUID REFERENCES projects (id) ON DELETE CASCADE,
    created_at         TIMESTAMPTZ NOT NULL DEFAULT now(),
    updated_at         TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX review_rules_priority_idx ON review_rules (priority DESC);
CREATE INDEX review_rules_project_id_idx ON review_rules (project_id);
CREATE TRIGGER review_rules_set_updated_at BEFORE UPDATE ON review_rules
    FOR EACH ROW EXECUTE FUNCTION reviewd_set_updated_at();

-- One review per MR/PR review run; later pushes add rounds (round_number is the latest).
CREATE TABLE reviews (
    id                 UUID PRIMARY KEY DEFAULT gen_random_uuid(),
    project_id         UUID NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    project_name       TEXT NOT NULL,
    mr_iid             BIGINT NOT NULL,
    mr_title           TEXT NOT NULL,
    mr_url             TEXT NOT NULL,
    source_branch      TEXT NOT NULL,
    target_branch      TEXT NOT NULL,
    author_username    TEXT,
    status             TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'completed', 'failed')),
    ai_provider        TEXT NOT NULL,
    ai_model           TEXT NOT NULL,
    comment_count      INTEGER NOT NULL DEFAULT 0,
    triggered_by       TEXT NOT NULL CHECK (triggered_by IN ('auto', 'manual')),
    overall_rating     TEXT CHECK (overall_rating IN ('A', 'B', 'C', 'D', 'F')),
    score              INTEGER CHECK (score BETWEEN 0 AND 100),
    summary            TEXT,
    base_commit_sha    TEXT,
    head_commit_sha    TEXT NOT NULL,
    start_commit_sha   TEXT,
    round_number       INTEGER NOT NULL DEFAULT 1 CHECK (round_number >= 1),
    applied_rule_ids   TEXT[] NOT NULL DEFAULT '{}',
    reviewed_lines     INTEGER NOT NULL DEFAULT 0,
    -- Platform id of the summary note/comment that is edited in place each round.
    summary_comment_id TEXT,
    template_id        UUID REFERENCES review_templates (id) ON DELETE SET NULL,
    error_message      TEXT,
    created_at         TIMESTAMPTZ NOT NULL DEFAULT now(),
    updated_at         TIMESTAMPTZ NOT NULL DEFAULT now(),
    started_at         TIMESTAMPTZ,
    completed_at       TIMESTAMPTZ
);
CREATE INDEX reviews_created_at_idx ON reviews (created_at DESC);
CREATE INDEX reviews_project_created_idx ON reviews (project_id, created_at DESC);
CREATE INDEX reviews_status_created_idx ON reviews (status, created_at DESC);
CREATE INDEX reviews_project_mr_idx ON reviews (project_id, mr_iid, created_at DESC);
CREATE INDEX reviews_triggered_by_created_idx ON reviews (triggered_by, created_at DESC);
CREATE INDEX reviews_template_id_idx ON reviews (template_id);
CREATE TRIGGER reviews_set_updated_at BEFORE UPDATE ON reviews
    FOR EACH ROW EXECUTE FUNCTION reviewd_set_updated_at();

CREATE TABLE review_rounds (
    id              UUID PRIMARY KEY DEFAULT gen_random_uuid(),
    review_id       UUID NOT NULL REFERENCES reviews (id) ON DELETE CASCADE,
    round_number    INTEGER NOT NULL CHECK (round_number >= 1),
    is_differential BOOLEAN NOT NULL DEFAULT false,
    base_sha        TEXT,
    head_sha        TEXT NOT NULL,
    file_count      INTEGER NOT NULL DEFAULT 0,
    comment_count   INTEGER NOT NULL DEFAULT 0,
    created_at      TIMESTAMPTZ NOT NULL DEFAULT now(),
    completed_at    TIMESTAMPTZ,
    CONSTRAINT review_rounds_review_round_key UNIQUE (review_id, round_number)
);

CREATE TABLE review_files (
    id             UUID PRIMARY KEY DEFAULT gen_random_uuid(),
    review_id      UUID NOT NULL REFERENCES reviews (id) ON DELETE CASCADE,
    round_id       UUID REFERENCES review_rounds (id) ON DELETE CASCADE,
    file_path      TEXT NOT NULL,
    old_path       TEXT,
    change_type    TEXT NOT NULL CHECK (change_type IN ('new', 'modified', 'deleted', 'renamed')),
    status         TEXT NOT NULL DEFAULT 'pending'
                   CHECK (status IN ('pending', 'processing', 'completed', 'failed', 'skipped')),
    summary        TEXT,
    comment_count  INTEGER NOT NULL DEFAULT 0,
    prompt_summary TEXT,
    -- Hash of the file content at the round's head: a differential round skips unchanged files.
    content_hash   TEXT,
    error_message  TEXT,
    attempts       INTEGER NOT NULL DEFAULT 0,
    started_at     TIMESTAMPTZ,
    completed_at   TIMESTAMPTZ,
    created_at     TIMESTAMPTZ NOT NULL DEFAULT now(),
    updated_at     TIMESTAMPTZ NOT NULL DEFAULT now(),
    CONSTRAINT review_files_round_path_key UNIQUE (round_id, file_path)
);
CREATE INDEX review_files_review_path_idx ON review_files (review_id, file_path);
CREATE TRIGGER review_files_set_updated_at BEFORE UPDATE ON review_files
    FOR EACH ROW EXECUTE FUNCTION reviewd_set_updated_at();

CREATE TABLE review_comments (
    id                   UUID PRIMARY KEY DEFAULT gen_random_uuid(),
    review_id            UUID NOT NULL REFERENCES reviews (id) ON DELETE CASCADE,
    round_id             UUID NOT NULL REFERENCES review_rounds (id) ON DELETE CASCADE,
    file_id              UUID REFERENCES review_files (id) ON DELETE CASCADE,
    file_path            TEXT NOT NULL,
    line_number          INTEGER NOT NULL,
    severity             TEXT NOT NULL CHECK (severity IN ('info', 'warning', 'error')),
    message              TEXT NOT NULL,
    -- Stable hash of (file, normalized message, anchor): an identical comment of an earlier
    -- round of the same review is not posted again.
    fingerprint          TEXT NOT NULL,
    host_a_discussion_id TEXT,
    platform_comment_id  TEXT,
    posted_at            TIMESTAMPTZ,
    created_at           TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX review_comments_review_created_idx ON review_comments (review_id, created_at);
CREATE INDEX review_comments_review_path_idx ON review_comments (review_id, file_path);
CREATE INDEX review_comments_review_severity_idx ON review_comments (review_id, severity);
CREATE INDEX review_comments_review_fingerprint_idx ON review_comments (review_id, fingerprint);
CREATE INDEX review_comments_round_id_idx ON review_comments (round_id);
CREATE INDEX review_comments_file_id_idx ON review_comments (file_id);

-- comment_id NULL: feedback on the review as a whole.
CREATE TABLE review_feedbacks (
    id              UUID PRIMARY KEY DEFAULT gen_random_uuid(),
    review_id       UUID NOT NULL REFERENCES reviews (id) ON DELETE CASCADE,
    comment_id      UUID REFERENCES review_comments (id) ON DELETE CASCADE,
    feedback_type   TEXT NOT NULL CHECK (feedback_type IN ('positive', 'negative')),
    tracking_status TEXT NOT NULL DEFAULT 'pending'
                    CHECK (tracking_status IN ('pending', 'accepted', 'rejected', 'implemented')),
    username        TEXT,
    note            TEXT,
    created_at      TIMESTAMPTZ NOT NULL DEFAULT now(),
    updated_at      TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX review_feedbacks_review_created_idx ON review_feedbacks (review_id, created_at);
CREATE INDEX review_feedbacks_comment_id_idx ON review_feedbacks (comment_id);
CREATE TRIGGER review_feedbacks_set_updated_at BEFORE UPDATE ON review_feedbacks
    FOR EACH ROW EXECUTE FUNCTION reviewd_set_updated_at();

-- review_id is SET NULL on delete so that usage/cost history survives.
CREATE TABLE ai_call_logs (
    id                UUID PRIMARY KEY DEFAULT gen_random_uuid(),
    review_id         UUID REFERENCES reviews (id) ON DELETE SET NULL,
    file_path         TEXT,
    provider          TEXT NOT NULL,
    model             TEXT NOT NULL,
    status            TEXT NOT NULL CHECK (status IN ('success', 'failed')),
    duration_ms       BIGINT NOT NULL DEFAULT 0,
    prompt_tokens     INTEGER NOT NULL DEFAULT 0,
    completion_tokens INTEGER NOT NULL DEFAULT 0,
    total_tokens      INTEGER NOT NULL DEFAULT 0,
    error_message     TEXT,
    created_at        TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX ai_call_logs_review_created_idx ON ai_call_logs (review_id, created_at DESC);
CREATE INDEX ai_call_logs_review_provider_idx ON ai_call_logs (review_id, provider);
CREATE INDEX ai_call_logs_review_status_idx ON ai_call_logs (review_id, status);
CREATE INDEX ai_call_logs_provider_created_idx ON ai_call_logs (provider, created_at DESC);
CREATE INDEX ai_call_logs_status_created_idx ON ai_call_logs (status, created_at DESC);
CREATE INDEX ai_call_logs_created_at_idx ON ai_call_logs (created_at DESC);

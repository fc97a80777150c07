-- Platform connections, AI configurations, global review settings and synced projects.
-- Every secret is stored encrypted (AES-256-GCM, base64) in a column suffixed _enc.

CREATE TABLE platform_configs (
    id                 UUID PRIMARY KEY DEFAULT gen_random_uuid(),
    name               TEXT NOT NULL,
    platform_type      TEXT NOT NULL CHECK (platform_type IN ('hostA', 'hostB')),
    base_url           TEXT NOT NULL,
    auth_type          TEXT NOT NULL DEFAULT 'token' CHECK (auth_type IN ('token', 'oauth')),
    access_token_enc   TEXT,
    app_id             TEXT,
    app_secret_enc     TEXT,
    webhook_secret_enc TEXT,
    refresh_token_enc  TEXT,
    token_expires_at   TIMESTAMPTZ,
    -- OAuth authorization in flight: the state sent to the platform and the redirect URI
    -- that the callback must repeat.
    oauth_state        TEXT,
    oauth_redirect_uri TEXT,
    token_scopes       TEXT[] NOT NULL DEFAULT '{}',
    enabled            BOOLEAN NOT NULL DEFAULT true,
    is_default         BOOLEAN NOT NULL DEFAULT false,
    created_at         TIMESTAMPTZ NOT NULL DEFAULT now(),
    updated_at         TIMESTAMPTZ NOT NULL DEFAULT now()
);
-- At most one default config per platform type.
CREATE UNIQUE INDEX platform_configs_default_per_type_idx ON platform_configs (platform_type) WHERE is_default;
CREATE INDEX platform_configs_platform_type_idx ON platform_configs (platform_type);
CREATE TRIGGER platform_configs_set_updated_at BEFORE UPDATE ON platform_configs
    FOR EACH ROW EXECUTE FUNCTION reviewd_set_updated_at();

CREATE TABLE ai_configs (
    id                    UUID PRIMARY KEY DEFAULT gen_random_uuid(),
    name                  TEXT NOT NULL,
    provider              TEXT NOT NULL,
    endpoint              TEXT NOT NULL,
    model                 TEXT NOT NULL,
    api_key_enc           TEXT,
    max_tokens            INTEGER CHECK (max_tokens IS NULL OR max_tokens > 0),
    temperature           DOUBLE PRECISION CHECK (temperature IS NULL OR (temperature >= 0 AND temperature <= 2)),
    context_window_tokens INTEGER CHECK (context_window_tokens IS NULL OR context_window_tokens > 0),
    is_default            BOOLEAN NOT NULL DEFAULT false,
    enabled               BOOLEAN NOT NULL DEFAULT true,
    created_at            TIMESTAMPTZ NOT NULL DEFAULT now(),
    updated_at            TIMESTAMPTZ NOT NULL DEFAULT now()
);
-- At most one global default AI configuration (the single source of truth for "the default").
CREATE UNIQUE INDEX ai_configs_single_default_idx ON ai_configs (is_default) WHERE is_default;
CREATE TRIGGER ai_configs_set_updated_at BEFORE UPDATE ON ai_configs
    FOR EACH ROW EXECUTE FUNCTION reviewd_set_updated_at();

-- Global review settings: exactly one row (id = 1), created here.
-- The default AI config and default template are the rows flagged is_default in
-- ai_configs / review_templates, not ids stored here (one source of truth).
CREATE TABLE global_settings (
    id                   SMALLINT PRIMARY KEY DEFAULT 1 CHECK (id = 1),
    auto_review          BOOLEAN NOT NULL DEFAULT true,
    send_to_platform     BOOLEAN NOT NULL DEFAULT true,
    file_ignore_patterns TEXT[] NOT NULL DEFAULT '{"*.lock","package-lock.json","pnpm-lock.yaml","*.min.js","*.min.css","*.map"}',
    -- MR/PR comment commands that trigger a manual review.
    review_commands      TEXT[] NOT NULL DEFAULT '{"/review"}',
    updated_at           TIMESTAMPTZ NOT NULL DEFAULT now()
);
INSERT INTO global_settings DEFAULT VALUES;
CREATE TRIGGER global_settings_set_updated_at BEFORE UPDATE ON global_settings
    FOR EACH ROW EXECUTE FUNCTION reviewd_set_updated_at();

CREATE TABLE projects (
    id                   UUID PRIMARY KEY DEFAULT gen_random_uuid(),
    -- RESTRICT: deleting a config with projects needs force=true, which deletes them first.
    platform_config_id   UUID NOT NULL REFERENCES platform_configs (id) ON DELETE RESTRICT,
    platform_type        TEXT NOT NULL CHECK (platform_type IN ('hostA', 'hostB')),
    platform_project_id  TEXT NOT NULL,
    name                 TEXT NOT NULL,
    full_path            TEXT NOT NULL,
    web_url              TEXT NOT NULL,
    default_branch       TEXT,
    visibility           TEXT,
    enabled              BOOLEAN NOT NULL DEFAULT true,
    -- NULL inherits global_settings.
    auto_review          BOOLEAN,
    file_ignore_patterns TEXT[],
    ai_config_id         UUID REFERENCES ai_configs (id) ON DELETE SET NULL,
    send_to_platform     BOOLEAN,
    default_reviewer_ids TEXT[] NOT NULL DEFAULT '{}',
    auto_assign_author   BOOLEAN NOT NULL DEFAULT false,
    -- Project default template; the foreign key is added by the reviews migration.
    template_id          UUID,
    webhook_id           TEXT,
    webhook_url          TEXT,
    -- NULL is the "not_configured" filter value.
    webhook_status       TEXT CHECK (webhook_status IN ('active', 'inactive', 'error', 'unknown')),
    webhook_checked_at   TIMESTAMPTZ,
    last_synced_at       TIMESTAMPTZ,
    created_at           TIMESTAMPTZ NOT NULL DEFAULT now(),
    updated_at           TIMESTAMPTZ NOT NULL DEFAULT now(),
    CONSTRAINT projects_platform_project_key UNIQUE (platform_config_id, platform_project_id)
);
-- Webhook receivers look a project up by its platform id.
CREATE INDEX projects_platform_type_project_idx ON projects (platform_type, platform_project_id);
CREATE INDEX projects_lower_name_idx ON projects (lower(name));
CREATE INDEX projects_lower_full_path_idx ON projects (lower(full_path));
CREATE INDEX projects_enabled_idx ON projects (enabled);
CREATE INDEX projects_webhook_status_idx ON projects (webhook_status);
CREATE INDEX projects_ai_config_id_idx ON projects (ai_config_id);
CREATE INDEX projects_template_id_idx ON projects (template_id);
CREATE INDEX projects_created_at_idx ON projects (created_at DESC);
CREATE TRIGGER projects_set_updated_at BEFORE UPDATE ON projects
    FOR EACH ROW EXECUTE FUNCTION reviewd_set_updated_at();

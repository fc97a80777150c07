-- Notification settings, delivery history, digest queue and browser push subscriptions.

-- Exactly one row (id = 1), created here. Secrets (SMTP password, signing secrets, chat
-- tokens and webhook URLs that embed tokens, VAPID private key) are encrypted (_enc).
-- Kept at 32 columns, diesel's "32-column-tables" limit: the last digest time is read from
-- job_runs and notification_digest_events.digested_at, not stored here.
CREATE TABLE notification_configs (
    id                         SMALLINT PRIMARY KEY DEFAULT 1 CHECK (id = 1),
    email_enabled              BOOLEAN NOT NULL DEFAULT false,
    smtp_host                  TEXT,
    smtp_port                  INTEGER CHECK (smtp_port BETWEEN 1 AND 65535),
    smtp_secure                BOOLEAN NOT NULL DEFAULT true,
    smtp_username              TEXT,
    smtp_password_enc          TEXT,
    email_from                 TEXT,
    email_recipients           TEXT[] NOT NULL DEFAULT '{}',
    webhook_enabled            BOOLEAN NOT NULL DEFAULT false,
    webhook_urls               TEXT[] NOT NULL DEFAULT '{}',
    webhook_secret_enc         TEXT,
    chat_a_enabled             BOOLEAN NOT NULL DEFAULT false,
    chat_a_bot_token_enc       TEXT,
    chat_a_channels            TEXT[] NOT NULL DEFAULT '{}',
    chat_b_enabled             BOOLEAN NOT NULL DEFAULT false,
    chat_b_webhook_url_enc     TEXT,
    chat_c_enabled             BOOLEAN NOT NULL DEFAULT false,
    chat_c_webhook_url_enc     TEXT,
    chat_d_enabled             BOOLEAN NOT NULL DEFAULT false,
    chat_d_webhook_url_enc     TEXT,
    chat_d_secret_enc          TEXT,
    push_enabled               BOOLEAN NOT NULL DEFAULT false,
    vapid_public_key           TEXT,
    vapid_private_key_enc      TEXT,
    vapid_subject              TEXT,
    notify_on_review_completed BOOLEAN NOT NULL DEFAULT true,
    notify_on_review_failed    BOOLEAN NOT NULL DEFAULT true,
    notify_on_rating_low       BOOLEAN NOT NULL DEFAULT true,
    rating_threshold           INTEGER NOT NULL DEFAULT 70 CHECK (rating_threshold BETWEEN 0 AND 100),
    notification_frequency     TEXT NOT NULL DEFAULT 'immediate'
                               CHECK (notification_frequency IN ('immediate', 'daily', 'weekly')),
    updated_at                 TIMESTAMPTZ NOT NULL DEFAULT now()
);
INSERT INTO notification_configs DEFAULT VALUES;
CREATE TRIGGER notification_configs_set_updated_at BEFORE UPDATE ON notification_configs
    FOR EACH ROW EXECUTE FUNCTION reviewd_set_updated_at();

-- One row per dispatch (per channel and recipient). review_id survives review deletion as NULL.
CREATE TABLE notification_history (
    id                UUID PRIMARY KEY DEFAULT gen_random_uuid(),
    review_id         UUID REFERENCES reviews (id) ON DELETE SET NULL,
    channel           TEXT NOT NULL
                      CHECK (channel IN ('email', 'webhook', 'chatA', 'chatB', 'chatC', 'chatD', 'push')),
    notification_type TEXT NOT NULL
                      CHECK (notification_type IN ('review_completed', 'review_failed', 'rating_low',
                                                   'daily_summary', 'weekly_summary')),
    recipient         TEXT,
    status            TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'sent', 'failed')),
    error_message     TEXT,
    attempts          INTEGER NOT NULL DEFAULT 0,
    payload           JSONB,
    sent_at           TIMESTAMPTZ,
    created_at        TIMESTAMPTZ NOT NULL DEFAULT now(),
    updated_at        TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX notification_history_created_at_idx ON notification_history (created_at DESC);
CREATE INDEX notification_history_channel_created_idx ON notification_history (channel, created_at DESC);
CREATE INDEX notification_history_status_created_idx ON notification_history (status, created_at DESC);
CREATE INDEX notification_history_type_created_idx ON notification_history (notification_type, created_at DESC);
CREATE INDEX notification_history_review_id_idx ON notification_history (review_id);
CREATE TRIGGER notification_history_set_updated_at BEFORE UPDATE ON notification_history
    FOR EACH ROW EXECUTE FUNCTION reviewd_set_updated_at();

-- Events held back for the daily/weekly digest (notificationFrequency != immediate).
-- digested_at is set when the event went out in a digest.
CREATE TABLE notification_digest_events (
    id          UUID PRIMARY KEY DEFAULT gen_random_uuid(),
    review_id   UUID REFERENCES reviews (id) ON DELETE SET NULL,
    event_type  TEXT NOT NULL CHECK (event_type IN ('review_completed', 'review_failed', 'rating_low')),
    payload     JSONB NOT NULL DEFAULT '{}',
    created_at  TIMESTAMPTZ NOT NULL DEFAULT now(),
    digested_at TIMESTAMPTZ
);
CREATE INDEX notification_digest_events_undigested_idx ON notification_digest_events (created_at)
    WHERE digested_at IS NULL;
CREATE INDEX notification_digest_events_digested_at_idx ON notification_digest_events (digested_at);
CREATE INDEX notification_digest_events_review_id_idx ON notification_digest_events (review_id);

CREATE TABLE push_subscriptions (
    id           UUID PRIMARY KEY DEFAULT gen_random_uuid(),
    user_id      UUID REFERENCES users (id) ON DELETE CASCADE,
    endpoint     TEXT NOT NULL UNIQUE,
    p256dh       TEXT NOT NULL,
    auth         TEXT NOT NULL,
    user_agent   TEXT,
    created_at   TIMESTAMPTZ NOT NULL DEFAULT now(),
    last_used_at TIMESTAMPTZ,
    expires_at   TIMESTAMPTZ
);
CREATE INDEX push_subscriptions_user_id_idx ON push_subscriptions (user_id);
CREATE INDEX push_subscriptions_expires_at_idx ON push_subscriptions (expires_at);

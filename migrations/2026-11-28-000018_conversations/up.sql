-- Conversations (issue 39): each comment that speaks to reviewd (a command, a
-- mention, a reply in a thread), recorded once per platform comment, and what
-- reviewd did about it. The unique key is what makes a redelivered webhook find
-- the first record instead of asking twice.
CREATE TABLE conversations (
    id              UUID PRIMARY KEY DEFAULT gen_random_uuid(),
    project_id      UUID NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    mr_iid          BIGINT NOT NULL,
    note_id         TEXT NOT NULL,
    thread_id       TEXT,
    author_id       TEXT,
    author_username TEXT NOT NULL,
    author_is_bot   BOOLEAN NOT NULL DEFAULT false,
    body            TEXT NOT NULL,
    addressed       TEXT NOT NULL CHECK (addressed IN ('command', 'mention', 'reply')),
    command         TEXT,
    status          TEXT NOT NULL DEFAULT 'queued'
                    CHECK (status IN ('queued', 'answered', 'refused', 'ignored', 'failed')),
    answer          TEXT,
    answer_note_id  TEXT,
    detail          TEXT,
    created_at      TIMESTAMPTZ NOT NULL DEFAULT now(),
    answered_at     TIMESTAMPTZ,
    UNIQUE (project_id, note_id)
);
-- The MR's conversations (the review page) and the rate limits' counts.
CREATE INDEX conversations_mr_idx ON conversations (project_id, mr_iid, created_at);
CREATE INDEX conversations_author_idx ON conversations (project_id, author_username, created_at);

-- What the team told reviewd about one MR: paused (no automatic reviews),
-- ignored (no reviews at all), and when an outsider was refused (once per MR).
CREATE TABLE merge_request_controls (
    project_id  UUID NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    mr_iid      BIGINT NOT NULL,
    paused      BOOLEAN NOT NULL DEFAULT false,
    ignored     BOOLEAN NOT NULL DEFAULT false,
    refused_at  TIMESTAMPTZ,
    changed_by  TEXT,
    updated_at  TIMESTAMPTZ NOT NULL DEFAULT now(),
    PRIMARY KEY (project_id, mr_iid)
);

-- A project's lessons, sent with its prompts.
CREATE TABLE learnings (
    id          UUID PRIMARY KEY DEFAULT gen_random_uuid(),
    project_id  UUID NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    text        TEXT NOT NULL CHECK (length(text) BETWEEN 1 AND 2000),
    source      TEXT NOT NULL CHECK (source IN ('command', 'model', 'api')),
    author      TEXT,
    mr_iid      BIGINT,
    created_at  TIMESTAMPTZ NOT NULL DEFAULT now(),
    updated_at  TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX learnings_project_idx ON learnings (project_id, created_at);

-- A task that answers a conversation rides the review queue (its retries,
-- leases and recovery) but is no review: runners never claim it, and it neither
-- waits for nor holds up the MR's review.
ALTER TABLE review_tasks ADD COLUMN conversation_id UUID
    REFERENCES conversations (id) ON DELETE CASCADE;

-- Analyzers' results uploaded from CI as SARIF (issue 40): kept per project and
-- commit, read (already normalised) by the round that reviews that head, whether
-- the upload came before the round or after it began.
CREATE TABLE analysis_uploads (
    id UUID PRIMARY KEY,
    project_id UUID NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    commit_sha TEXT NOT NULL,
    tools JSONB NOT NULL,
    findings JSONB NOT NULL,
    finding_count INTEGER NOT NULL CHECK (finding_count >= 0),
    created_at TIMESTAMPTZ NOT NULL DEFAULT now()
);

CREATE INDEX analysis_uploads_commit_idx ON analysis_uploads (project_id, commit_sha, created_at);

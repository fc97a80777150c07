-- The merge gate (issue 40): whether reviewd posts a `reviewd` commit status (or
-- check run) on a project's MRs, and the grade below which it fails. A repository's
-- `.reviewd.yml` (`gate:`) may change both for its own MRs.
ALTER TABLE projects ADD COLUMN gate_enabled BOOLEAN NOT NULL DEFAULT TRUE;
ALTER TABLE projects ADD COLUMN gate_min_rating TEXT
    CHECK (gate_min_rating IN ('A', 'B', 'C', 'D', 'F'));

-- A comment rejected twice on a project is not posted again there, unless the
-- project turns that off.
ALTER TABLE projects ADD COLUMN suppress_rejected BOOLEAN NOT NULL DEFAULT TRUE;
-- The periodic feedback pass reads the reviews updated in the last days.
CREATE INDEX reviews_updated_at_idx ON reviews (updated_at DESC);

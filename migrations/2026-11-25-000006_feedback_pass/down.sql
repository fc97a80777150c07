DROP INDEX reviews_updated_at_idx;
ALTER TABLE projects DROP COLUMN suppress_rejected;

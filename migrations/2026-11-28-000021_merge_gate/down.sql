ALTER TABLE projects DROP COLUMN gate_min_rating;
ALTER TABLE projects DROP COLUMN gate_enabled;

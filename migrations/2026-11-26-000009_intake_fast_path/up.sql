-- The webhook path reads platform configs, projects, the global settings and AI
-- configs from memory (crates/store-postgres/src/cache.rs). Each change to them
-- tells every replica at its commit, so none serves what was changed.
CREATE FUNCTION reviewd_config_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('reviewd_config', TG_TABLE_NAME);
    RETURN NULL;
END
$$;

-- Per row, so a statement that changes nothing (a budget claim already taken) tells
-- nobody; PostgreSQL sends one notification per transaction for equal payloads.
CREATE TRIGGER platform_configs_notify AFTER INSERT OR UPDATE OR DELETE ON platform_configs
    FOR EACH ROW EXECUTE FUNCTION reviewd_config_changed();
CREATE TRIGGER platform_configs_truncate_notify AFTER TRUNCATE ON platform_configs
    FOR EACH STATEMENT EXECUTE FUNCTION reviewd_config_changed();
CREATE TRIGGER projects_notify AFTER INSERT OR UPDATE OR DELETE ON projects
    FOR EACH ROW EXECUTE FUNCTION reviewd_config_changed();
CREATE TRIGGER projects_truncate_notify AFTER TRUNCATE ON projects
    FOR EACH STATEMENT EXECUTE FUNCTION reviewd_config_changed();
CREATE TRIGGER global_settings_notify AFTER INSERT OR UPDATE OR DELETE ON global_settings
    FOR EACH ROW EXECUTE FUNCTION reviewd_config_changed();
CREATE TRIGGER global_settings_truncate_notify AFTER TRUNCATE ON global_settings
    FOR EACH STATEMENT EXECUTE FUNCTION reviewd_config_changed();
CREATE TRIGGER ai_configs_notify AFTER INSERT OR UPDATE OR DELETE ON ai_configs
    FOR EACH ROW EXECUTE FUNCTION reviewd_config_changed();
CREATE TRIGGER ai_configs_truncate_notify AFTER TRUNCATE ON ai_configs
    FOR EACH STATEMENT EXECUTE FUNCTION reviewd_config_changed();

-- Every webhook inserts a task; these columns are empty then (a review, a runner, a
-- template and a requester come later or never), so their indexes need not hold
-- the empty rows: fewer index entries written per webhook. Lookups by a value
-- (`= $1`, the foreign keys' ON DELETE SET NULL) still use them.
DROP INDEX review_tasks_review_id_idx;
CREATE INDEX review_tasks_review_id_idx ON review_tasks (review_id) WHERE review_id IS NOT NULL;
DROP INDEX review_tasks_runner_id_idx;
CREATE INDEX review_tasks_runner_id_idx ON review_tasks (runner_id) WHERE runner_id IS NOT NULL;
DROP INDEX review_tasks_template_id_idx;
CREATE INDEX review_tasks_template_id_idx ON review_tasks (template_id) WHERE template_id IS NOT NULL;
DROP INDEX review_tasks_requested_by_idx;
CREATE INDEX review_tasks_requested_by_idx ON review_tasks (requested_by) WHERE requested_by IS NOT NULL;
-- Room on each page for the row's next version: the message id written just after
-- the insert, and the status changes that follow, stay on the page (HOT updates).
ALTER TABLE review_tasks SET (fillfactor = 90);

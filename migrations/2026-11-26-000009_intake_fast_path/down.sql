ALTER TABLE review_tasks RESET (fillfactor);
DROP INDEX review_tasks_requested_by_idx;
CREATE INDEX review_tasks_requested_by_idx ON review_tasks (requested_by);
DROP INDEX review_tasks_template_id_idx;
CREATE INDEX review_tasks_template_id_idx ON review_tasks (template_id);
DROP INDEX review_tasks_runner_id_idx;
CREATE INDEX review_tasks_runner_id_idx ON review_tasks (runner_id);
DROP INDEX review_tasks_review_id_idx;
CREATE INDEX review_tasks_review_id_idx ON review_tasks (review_id);

DROP TRIGGER ai_configs_truncate_notify ON ai_configs;
DROP TRIGGER ai_configs_notify ON ai_configs;
DROP TRIGGER global_settings_truncate_notify ON global_settings;
DROP TRIGGER global_settings_notify ON global_settings;
DROP TRIGGER projects_truncate_notify ON projects;
DROP TRIGGER projects_notify ON projects;
DROP TRIGGER platform_configs_truncate_notify ON platform_configs;
DROP TRIGGER platform_configs_notify ON platform_configs;
DROP FUNCTION reviewd_config_changed();

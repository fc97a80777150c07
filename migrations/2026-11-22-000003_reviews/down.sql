DROP TABLE ai_call_logs;
DROP TABLE review_feedbacks;
DROP TABLE review_comments;
DROP TABLE review_files;
DROP TABLE review_rounds;
DROP TABLE reviews;
DROP TABLE review_rules;
ALTER TABLE projects DROP CONSTRAINT projects_template_id_fkey;
DROP TABLE review_templates;

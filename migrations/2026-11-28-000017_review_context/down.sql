ALTER TABLE projects DROP COLUMN context_budget_tokens;
ALTER TABLE ai_call_logs DROP COLUMN cached_tokens;
ALTER TABLE review_rounds DROP COLUMN context;
ALTER TABLE review_files DROP COLUMN context;

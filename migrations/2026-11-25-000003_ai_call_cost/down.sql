ALTER TABLE ai_call_logs DROP COLUMN cost_usd;

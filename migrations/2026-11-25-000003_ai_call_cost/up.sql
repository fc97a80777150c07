-- What each AI call cost in USD: its tokens times the prices of the AI configuration
-- that served it, computed by the server when the call is logged (prices edited later
-- do not rewrite the past). NULL when the configuration had no prices.
ALTER TABLE ai_call_logs ADD COLUMN cost_usd DOUBLE PRECISION;

-- AI configurations as the admin API manages them (`/api/ai-configs`): how many calls a
-- replica sends to one configuration at once, how long one HTTP attempt may take, and the
-- prices its token usage is counted at (USD per million tokens; null when unknown).
-- The model settings nothing ever read (max_tokens, temperature, context_window_tokens)
-- and `enabled` (a configuration in use is one a project or the default names) go.
-- No code wrote this table before: a row typed in by hand is taken as the one provider
-- reviewd speaks, an OpenAI-compatible API.
UPDATE ai_configs SET provider = 'openai-compatible' WHERE provider <> 'openai-compatible';

ALTER TABLE ai_configs
    DROP COLUMN max_tokens,
    DROP COLUMN temperature,
    DROP COLUMN context_window_tokens,
    DROP COLUMN enabled,
    ADD COLUMN max_concurrency INTEGER NOT NULL DEFAULT 3
        CHECK (max_concurrency BETWEEN 1 AND 64),
    ADD COLUMN timeout_secs INTEGER NOT NULL DEFAULT 120
        CHECK (timeout_secs BETWEEN 1 AND 3600),
    ADD COLUMN input_price_per_mtok DOUBLE PRECISION
        CHECK (input_price_per_mtok IS NULL OR input_price_per_mtok >= 0),
    ADD COLUMN output_price_per_mtok DOUBLE PRECISION
        CHECK (output_price_per_mtok IS NULL OR output_price_per_mtok >= 0),
    ADD CONSTRAINT ai_configs_provider_check CHECK (provider IN ('openai-compatible'));

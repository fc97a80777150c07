ALTER TABLE ai_configs
    DROP CONSTRAINT ai_configs_provider_check,
    DROP COLUMN max_concurrency,
    DROP COLUMN timeout_secs,
    DROP COLUMN input_price_per_mtok,
    DROP COLUMN output_price_per_mtok,
    ADD COLUMN max_tokens INTEGER CHECK (max_tokens IS NULL OR max_tokens > 0),
    ADD COLUMN temperature DOUBLE PRECISION CHECK (temperature IS NULL OR (temperature >= 0 AND temperature <= 2)),
    ADD COLUMN context_window_tokens INTEGER CHECK (context_window_tokens IS NULL OR context_window_tokens > 0),
    ADD COLUMN enabled BOOLEAN NOT NULL DEFAULT true;

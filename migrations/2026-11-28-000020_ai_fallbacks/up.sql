-- Fallback models (issue 40): an AI configuration lists up to three others, tried
-- in `position` order when a call to it fails (the provider down, rate limiting
-- past its retries, the model withdrawn). Deleting either side removes the link.
CREATE TABLE ai_config_fallbacks (
    config_id UUID NOT NULL REFERENCES ai_configs (id) ON DELETE CASCADE,
    position SMALLINT NOT NULL CHECK (position BETWEEN 1 AND 3),
    fallback_id UUID NOT NULL REFERENCES ai_configs (id) ON DELETE CASCADE,
    PRIMARY KEY (config_id, position),
    UNIQUE (config_id, fallback_id),
    CHECK (config_id <> fallback_id)
);

-- Deleting a configuration finds the lists it is on.
CREATE INDEX ai_config_fallbacks_fallback_idx ON ai_config_fallbacks (fallback_id);

-- What each file's review was given besides its diff (issue 37): the pieces of
-- context (enclosing symbols, definitions, callers, guidance, the MR overview)
-- with their paths, lines, tokens and reasons. NULL for files reviewed before.
ALTER TABLE review_files ADD COLUMN context JSONB;
-- What gathering a round's context cost and found: calls and bytes read from the
-- platform (or a runner's clone), cache hits, the symbol index's size, guidance
-- files, time spent.
ALTER TABLE review_rounds ADD COLUMN context JSONB;
-- Prompt tokens a provider served from its prompt cache.
ALTER TABLE ai_call_logs ADD COLUMN cached_tokens INTEGER NOT NULL DEFAULT 0
    CHECK (cached_tokens >= 0);
-- A project's context budget per prompt (tokens besides the diff); NULL inherits
-- the server's REVIEW_CONTEXT_TOKENS.
ALTER TABLE projects ADD COLUMN context_budget_tokens INTEGER
    CHECK (context_budget_tokens >= 0 AND context_budget_tokens <= 100000);

-- Tasks carrying a round prepared ahead of a runner's claim (`assignment ? 'prepared'`):
-- queued ones, which claims take first, and the few no longer queued whose round is
-- still to be ended. A claim strips the mark, so the index stays small.
CREATE INDEX review_tasks_prepared_idx ON review_tasks (created_at)
    WHERE assignment ? 'prepared';

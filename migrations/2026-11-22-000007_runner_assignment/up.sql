-- The round a runner was given when it claimed a task (review, round, files), read
-- back when its result arrives, possibly at another replica.
ALTER TABLE review_tasks ADD COLUMN assignment JSONB;

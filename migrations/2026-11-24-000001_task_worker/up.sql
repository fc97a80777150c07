-- The server worker (a process's stable name) whose attempt holds a `processing` task: only
-- that worker renews or finishes the attempt, so one taken over after going silent (a frozen
-- or partitioned replica) changes nothing when it comes back. No index: the attempt's
-- updates go by id, and the listing of unfinished tasks (a rare recovery) walks the primary key.
ALTER TABLE review_tasks ADD COLUMN worker_id TEXT;

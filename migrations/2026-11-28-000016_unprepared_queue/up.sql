-- The queued tasks no preparation was stored for, oldest first: the preparer's next
-- candidates. Through `review_tasks_queued_idx` it read every prepared task before
-- the first unprepared one, at each call: 4,400 pages and 7.7 ms a call with a
-- backlog of 4,000 prepared, 67 s of the database's time in one claims bench.
CREATE INDEX review_tasks_unprepared_idx ON review_tasks (created_at)
    WHERE status = 'queued' AND (assignment ? 'prepared') IS NOT TRUE;

-- Indexes for the claims' hot queries, each holding only the few rows they look at:
-- the queue's head (claims and the preparer take the oldest queued task; the index on
-- every task's created_at made them step over every claimed or finished task first),
-- the MR's task in progress (each candidate's "no other task of this MR runs" check)
-- and a runner's tasks in progress (its free capacity, counted at each claim).
CREATE INDEX review_tasks_queued_idx ON review_tasks (created_at)
    WHERE status = 'queued';
CREATE INDEX review_tasks_mr_active_idx ON review_tasks (project_id, mr_iid)
    WHERE status IN ('processing', 'in_progress');
CREATE INDEX review_tasks_runner_active_idx ON review_tasks (runner_id)
    WHERE status IN ('processing', 'in_progress');

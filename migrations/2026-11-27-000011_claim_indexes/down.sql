DROP INDEX review_tasks_runner_active_idx;
DROP INDEX review_tasks_mr_active_idx;
DROP INDEX review_tasks_queued_idx;

DROP INDEX review_tasks_prepared_idx;

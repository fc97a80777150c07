ALTER TABLE review_tasks DROP COLUMN worker_id;

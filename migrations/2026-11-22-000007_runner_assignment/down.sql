ALTER TABLE review_tasks DROP COLUMN assignment;

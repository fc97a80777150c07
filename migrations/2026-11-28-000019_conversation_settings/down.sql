ALTER TABLE projects DROP COLUMN refuse_outsiders;
ALTER TABLE review_tasks DROP COLUMN full_review;

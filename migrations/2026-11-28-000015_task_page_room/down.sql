ALTER TABLE review_tasks SET (fillfactor = 90);

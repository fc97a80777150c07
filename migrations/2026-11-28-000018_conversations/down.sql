ALTER TABLE review_tasks DROP COLUMN conversation_id;
DROP TABLE learnings;
DROP TABLE merge_request_controls;
DROP TABLE conversations;

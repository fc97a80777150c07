DROP INDEX review_feedbacks_origin_idx;
ALTER TABLE review_feedbacks DROP COLUMN source_id;
ALTER TABLE review_feedbacks DROP COLUMN source;

-- Where a feedback record came from (a reaction, a reply, a resolved thread, a later
-- round's change) and the id of that origin (the emoji's name, the reply's id): with
-- the comment and the user, they name the record, so that the webhooks and the
-- periodic pass that both see one reaction record it once. Records made before
-- (none were) count as `api`.
ALTER TABLE review_feedbacks ADD COLUMN source TEXT NOT NULL DEFAULT 'api'
    CHECK (source IN ('api', 'reaction', 'reply', 'resolved', 'implemented'));
ALTER TABLE review_feedbacks ADD COLUMN source_id TEXT NOT NULL DEFAULT '';
CREATE UNIQUE INDEX review_feedbacks_origin_idx
    ON review_feedbacks (comment_id, source, source_id, coalesce(username, ''));

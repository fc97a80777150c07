-- Committable suggestions: the replacement code posted with a comment, for new-side lines
-- suggestion_start_line..=suggestion_end_line of its file (the comment's line among them).
-- NULL when the model proposed none or its suggestion did not fit the diff; the three
-- columns are set together or not at all.
ALTER TABLE review_comments
    ADD COLUMN suggestion_start_line INTEGER,
    ADD COLUMN suggestion_end_line INTEGER,
    ADD COLUMN suggestion_code TEXT,
    ADD CONSTRAINT review_comments_suggestion_all_or_none CHECK (
        (suggestion_start_line IS NULL) = (suggestion_end_line IS NULL)
        AND (suggestion_start_line IS NULL) = (suggestion_code IS NULL)
    ),
    ADD CONSTRAINT review_comments_suggestion_lines CHECK (
        suggestion_start_line >= 1 AND suggestion_end_line >= suggestion_start_line
    );

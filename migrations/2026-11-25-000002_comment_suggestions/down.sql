ALTER TABLE review_comments
    DROP CONSTRAINT review_comments_suggestion_lines,
    DROP CONSTRAINT review_comments_suggestion_all_or_none,
    DROP COLUMN suggestion_code,
    DROP COLUMN suggestion_end_line,
    DROP COLUMN suggestion_start_line;

-- `review full` (issue 39): the task says to review every file again, not only
-- those changed since the last completed round.
ALTER TABLE review_tasks ADD COLUMN full_review BOOLEAN NOT NULL DEFAULT FALSE;

-- Whether someone without developer access who speaks to reviewd gets one polite
-- refusal per merge request (the default) or silence.
ALTER TABLE projects ADD COLUMN refuse_outsiders BOOLEAN NOT NULL DEFAULT TRUE;

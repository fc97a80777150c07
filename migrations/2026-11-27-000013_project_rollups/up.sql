-- The review list's stats and cost chart for one project (`projectId`), kept as the rows
-- change like the whole list's (migration `list_stats`): a project's figures were summed
-- from its rows on every call, 14 ms for the stats and 60-120 ms for the cost chart of a
-- project with 50,000 reviews. Keyed without a shard: one project's writers are few.

CREATE TABLE review_project_daily_stats (
    project_id   UUID NOT NULL,
    day          DATE NOT NULL,
    status       TEXT NOT NULL,
    triggered_by TEXT NOT NULL,
    reviews      BIGINT NOT NULL DEFAULT 0,
    comments     BIGINT NOT NULL DEFAULT 0,
    score_sum    BIGINT NOT NULL DEFAULT 0,
    scored       BIGINT NOT NULL DEFAULT 0,
    cost_usd     DOUBLE PRECISION NOT NULL DEFAULT 0,
    PRIMARY KEY (project_id, day, status, triggered_by)
);

CREATE TABLE ai_cost_project_daily (
    project_id   UUID NOT NULL,
    day          DATE NOT NULL,
    review_day   DATE NOT NULL,
    status       TEXT NOT NULL,
    triggered_by TEXT NOT NULL,
    calls        BIGINT NOT NULL DEFAULT 0,
    cost_usd     DOUBLE PRECISION NOT NULL DEFAULT 0,
    PRIMARY KEY (project_id, day, review_day, status, triggered_by)
);

CREATE OR REPLACE FUNCTION reviewd_add_review_stats(r reviews, sign INTEGER) RETURNS VOID AS $$
    INSERT INTO review_daily_stats AS s
        (day, status, triggered_by, shard, reviews, comments, score_sum, scored, cost_usd)
    VALUES (reviewd_utc_day(r.created_at), r.status, r.triggered_by, reviewd_stats_shard(r.id),
            sign, sign * r.comment_count, sign * coalesce(r.score, 0),
            sign * (r.score IS NOT NULL)::int, sign * coalesce(r.cost_usd, 0))
    ON CONFLICT (day, status, triggered_by, shard) DO UPDATE SET
        reviews = s.reviews + EXCLUDED.reviews,
        comments = s.comments + EXCLUDED.comments,
        score_sum = s.score_sum + EXCLUDED.score_sum,
        scored = s.scored + EXCLUDED.scored,
        -- An emptied cell holds no rounding residue.
        cost_usd = CASE WHEN s.reviews + EXCLUDED.reviews = 0 THEN 0
                        ELSE s.cost_usd + EXCLUDED.cost_usd END;
    INSERT INTO review_project_daily_stats AS s
        (project_id, day, status, triggered_by, reviews, comments, score_sum, scored, cost_usd)
    VALUES (r.project_id, reviewd_utc_day(r.created_at), r.status, r.triggered_by,
            sign, sign * r.comment_count, sign * coalesce(r.score, 0),
            sign * (r.score IS NOT NULL)::int, sign * coalesce(r.cost_usd, 0))
    ON CONFLICT (project_id, day, status, triggered_by) DO UPDATE SET
        reviews = s.reviews + EXCLUDED.reviews,
        comments = s.comments + EXCLUDED.comments,
        score_sum = s.score_sum + EXCLUDED.score_sum,
        scored = s.scored + EXCLUDED.scored,
        cost_usd = CASE WHEN s.reviews + EXCLUDED.reviews = 0 THEN 0
                        ELSE s.cost_usd + EXCLUDED.cost_usd END
$$ LANGUAGE sql;

CREATE OR REPLACE FUNCTION reviewd_add_review_calls(r reviews, sign INTEGER) RETURNS VOID AS $$
    INSERT INTO ai_cost_daily AS s
        (day, review_day, status, triggered_by, shard, calls, cost_usd)
    SELECT reviewd_utc_day(c.created_at), reviewd_utc_day(r.created_at), r.status, r.triggered_by,
           reviewd_stats_shard(r.id), sign * count(*), sign * sum(c.cost_usd)
    FROM ai_call_logs c
    WHERE c.review_id = r.id AND c.cost_usd IS NOT NULL
    GROUP BY 1
    ON CONFLICT (day, review_day, status, triggered_by, shard) DO UPDATE SET
        calls = s.calls + EXCLUDED.calls,
        cost_usd = CASE WHEN s.calls + EXCLUDED.calls = 0 THEN 0
                        ELSE s.cost_usd + EXCLUDED.cost_usd END;
    INSERT INTO ai_cost_project_daily AS s
        (project_id, day, review_day, status, triggered_by, calls, cost_usd)
    SELECT r.project_id, reviewd_utc_day(c.created_at), reviewd_utc_day(r.created_at), r.status,
           r.triggered_by, sign * count(*), sign * sum(c.cost_usd)
    FROM ai_call_logs c
    WHERE c.review_id = r.id AND c.cost_usd IS NOT NULL
    GROUP BY 2
    ON CONFLICT (project_id, day, review_day, status, triggered_by) DO UPDATE SET
        calls = s.calls + EXCLUDED.calls,
        cost_usd = CASE WHEN s.calls + EXCLUDED.calls = 0 THEN 0
                        ELSE s.cost_usd + EXCLUDED.cost_usd END
$$ LANGUAGE sql;

-- As before, with the project among what moves a review's figures.
CREATE OR REPLACE FUNCTION reviewd_reviews_stats() RETURNS trigger AS $$
BEGIN
    IF TG_OP = 'DELETE' THEN
        -- BEFORE DELETE: the calls still name the review (the foreign key's SET NULL runs
        -- after the row is gone, and then finds no review to charge).
        PERFORM reviewd_add_review_calls(OLD, -1);
        PERFORM reviewd_add_review_stats(OLD, -1);
        RETURN OLD;
    END IF;
    IF TG_OP = 'INSERT' THEN
        PERFORM reviewd_add_review_stats(NEW, 1);
        RETURN NULL;
    END IF;
    -- Two cells change in key order, so that two reviews moving between the same
    -- cells in opposite directions cannot deadlock.
    IF (reviewd_utc_day(OLD.created_at), OLD.status, OLD.triggered_by, OLD.project_id)
       <= (reviewd_utc_day(NEW.created_at), NEW.status, NEW.triggered_by, NEW.project_id) THEN
        PERFORM reviewd_add_review_stats(OLD, -1);
        PERFORM reviewd_add_review_stats(NEW, 1);
    ELSE
        PERFORM reviewd_add_review_stats(NEW, 1);
        PERFORM reviewd_add_review_stats(OLD, -1);
    END IF;
    IF (OLD.created_at, OLD.status, OLD.triggered_by, OLD.project_id)
       IS DISTINCT FROM (NEW.created_at, NEW.status, NEW.triggered_by, NEW.project_id) THEN
        PERFORM reviewd_add_review_calls(OLD, -1);
        PERFORM reviewd_add_review_calls(NEW, 1);
    END IF;
    RETURN NULL;
END;
$$ LANGUAGE plpgsql;

DROP TRIGGER reviews_stats_update ON reviews;
CREATE TRIGGER reviews_stats_update AFTER UPDATE OF created_at, status, triggered_by,
    comment_count, score, cost_usd, project_id ON reviews
    FOR EACH ROW
    WHEN ((OLD.created_at, OLD.status, OLD.triggered_by, OLD.comment_count, OLD.score, OLD.cost_usd,
           OLD.project_id)
          IS DISTINCT FROM
          (NEW.created_at, NEW.status, NEW.triggered_by, NEW.comment_count, NEW.score, NEW.cost_usd,
           NEW.project_id))
    EXECUTE FUNCTION reviewd_reviews_stats();

CREATE OR REPLACE FUNCTION reviewd_charge_call(c ai_call_logs, sign INTEGER) RETURNS VOID AS $$
DECLARE
    r_created_at TIMESTAMPTZ;
    r_status TEXT;
    r_triggered_by TEXT;
    r_project_id UUID;
BEGIN
    IF c.review_id IS NULL OR c.cost_usd IS NULL THEN
        RETURN;
    END IF;
    -- A refund that leaves the review no priced call makes its cost unknown again (NULL),
    -- as the sum of no calls is.
    UPDATE reviews
       SET cost_usd = CASE
               WHEN sign < 0 AND NOT EXISTS (SELECT 1 FROM ai_call_logs l
                                              WHERE l.review_id = c.review_id
                                                AND l.cost_usd IS NOT NULL) THEN NULL
               ELSE coalesce(cost_usd, 0) + sign * c.cost_usd END
    WHERE id = c.review_id
    RETURNING created_at, status, triggered_by, project_id
         INTO r_created_at, r_status, r_triggered_by, r_project_id;
    IF NOT FOUND THEN
        -- The review is being deleted: its trigger already took its calls away.
        RETURN;
    END IF;
    INSERT INTO ai_cost_daily AS s
        (day, review_day, status, triggered_by, shard, calls, cost_usd)
    VALUES (reviewd_utc_day(c.created_at), reviewd_utc_day(r_created_at), r_status,
            r_triggered_by, reviewd_stats_shard(c.review_id), sign, sign * c.cost_usd)
    ON CONFLICT (day, review_day, status, triggered_by, shard) DO UPDATE SET
        calls = s.calls + EXCLUDED.calls,
        cost_usd = CASE WHEN s.calls + EXCLUDED.calls = 0 THEN 0
                        ELSE s.cost_usd + EXCLUDED.cost_usd END;
    INSERT INTO ai_cost_project_daily AS s
        (project_id, day, review_day, status, triggered_by, calls, cost_usd)
    VALUES (r_project_id, reviewd_utc_day(c.created_at), reviewd_utc_day(r_created_at), r_status,
            r_triggered_by, sign, sign * c.cost_usd)
    ON CONFLICT (project_id, day, review_day, status, triggered_by) DO UPDATE SET
        calls = s.calls + EXCLUDED.calls,
        cost_usd = CASE WHEN s.calls + EXCLUDED.calls = 0 THEN 0
                        ELSE s.cost_usd + EXCLUDED.cost_usd END;
END;
$$ LANGUAGE plpgsql;

-- As before, and the projects' rollups too.
CREATE OR REPLACE FUNCTION reviewd_rebuild_list_stats() RETURNS VOID AS $$
BEGIN
    ALTER TABLE reviews DISABLE TRIGGER USER;
    UPDATE reviews r SET cost_usd = c.cost
    FROM (SELECT review_id, sum(cost_usd) AS cost FROM ai_call_logs
          WHERE review_id IS NOT NULL AND cost_usd IS NOT NULL GROUP BY review_id) c
    WHERE c.review_id = r.id AND r.cost_usd IS DISTINCT FROM c.cost;
    UPDATE reviews SET cost_usd = NULL
    WHERE cost_usd IS NOT NULL
      AND NOT EXISTS (SELECT 1 FROM ai_call_logs c
                      WHERE c.review_id = reviews.id AND c.cost_usd IS NOT NULL);
    ALTER TABLE reviews ENABLE TRIGGER USER;

    TRUNCATE review_daily_stats, ai_cost_daily, notification_daily_counts,
        review_project_daily_stats, ai_cost_project_daily;
    INSERT INTO review_daily_stats
        (day, status, triggered_by, shard, reviews, comments, score_sum, scored, cost_usd)
    SELECT reviewd_utc_day(created_at), status, triggered_by, reviewd_stats_shard(id), count(*),
           sum(comment_count), coalesce(sum(score), 0), count(score), coalesce(sum(cost_usd), 0)
    FROM reviews GROUP BY 1, 2, 3, 4;
    INSERT INTO review_project_daily_stats
        (project_id, day, status, triggered_by, reviews, comments, score_sum, scored, cost_usd)
    SELECT project_id, reviewd_utc_day(created_at), status, triggered_by, count(*),
           sum(comment_count), coalesce(sum(score), 0), count(score), coalesce(sum(cost_usd), 0)
    FROM reviews GROUP BY 1, 2, 3, 4;
    INSERT INTO ai_cost_daily (day, review_day, status, triggered_by, shard, calls, cost_usd)
    SELECT reviewd_utc_day(c.created_at), reviewd_utc_day(r.created_at), r.status,
           r.triggered_by, reviewd_stats_shard(r.id), count(*), sum(c.cost_usd)
    FROM ai_call_logs c JOIN reviews r ON r.id = c.review_id
    WHERE c.cost_usd IS NOT NULL
    GROUP BY 1, 2, 3, 4, 5;
    INSERT INTO ai_cost_project_daily (project_id, day, review_day, status, triggered_by, calls,
                                       cost_usd)
    SELECT r.project_id, reviewd_utc_day(c.created_at), reviewd_utc_day(r.created_at), r.status,
           r.triggered_by, count(*), sum(c.cost_usd)
    FROM ai_call_logs c JOIN reviews r ON r.id = c.review_id
    WHERE c.cost_usd IS NOT NULL
    GROUP BY 1, 2, 3, 4, 5;
    INSERT INTO notification_daily_counts
        (day, channel, status, notification_type, shard, deliveries)
    SELECT reviewd_utc_day(created_at), channel, status, notification_type,
           reviewd_stats_shard(id), count(*)
    FROM notification_history GROUP BY 1, 2, 3, 4, 5;
END;
$$ LANGUAGE plpgsql;

-- The projects' rollups from the rows there are.
INSERT INTO review_project_daily_stats
    (project_id, day, status, triggered_by, reviews, comments, score_sum, scored, cost_usd)
SELECT project_id, reviewd_utc_day(created_at), status, triggered_by, count(*),
       sum(comment_count), coalesce(sum(score), 0), count(score), coalesce(sum(cost_usd), 0)
FROM reviews GROUP BY 1, 2, 3, 4;
INSERT INTO ai_cost_project_daily (project_id, day, review_day, status, triggered_by, calls,
                                   cost_usd)
SELECT r.project_id, reviewd_utc_day(c.created_at), reviewd_utc_day(r.created_at), r.status,
       r.triggered_by, count(*), sum(c.cost_usd)
FROM ai_call_logs c JOIN reviews r ON r.id = c.review_id
WHERE c.cost_usd IS NOT NULL
GROUP BY 1, 2, 3, 4, 5;

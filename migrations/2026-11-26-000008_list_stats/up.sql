-- The review list's stats and the notification history's totals at a million rows: kept as
-- they change instead of recounted on every call (issue 18). Every figure stays exact: the
-- triggers below apply each row's change as a delta, in the writer's transaction.
--
-- A rollup row of "today" is written by every review or call of the day. Its key has a shard
-- (a byte of the row's id modulo 8) so that concurrent writers mostly lock different rows; the
-- reads sum the shards.

-- What a review's AI calls cost, kept by the calls' trigger: the list's stats and the detail
-- read it instead of summing ai_call_logs per review. NULL when no call was priced.
ALTER TABLE reviews ADD COLUMN cost_usd DOUBLE PRECISION;

-- The review list's figures per UTC day of the reviews' creation.
CREATE TABLE review_daily_stats (
    day          DATE NOT NULL,
    status       TEXT NOT NULL,
    triggered_by TEXT NOT NULL,
    shard        SMALLINT NOT NULL,
    reviews      BIGINT NOT NULL DEFAULT 0,
    comments     BIGINT NOT NULL DEFAULT 0,
    score_sum    BIGINT NOT NULL DEFAULT 0,
    scored       BIGINT NOT NULL DEFAULT 0,
    cost_usd     DOUBLE PRECISION NOT NULL DEFAULT 0,
    PRIMARY KEY (day, status, triggered_by, shard)
);

-- The priced calls and their cost per UTC day of the calls, under their review's day of
-- creation, status and trigger (the list's cost chart filters by those). Calls of no review
-- are not counted, as the chart never showed them.
CREATE TABLE ai_cost_daily (
    day          DATE NOT NULL,
    review_day   DATE NOT NULL,
    status       TEXT NOT NULL,
    triggered_by TEXT NOT NULL,
    shard        SMALLINT NOT NULL,
    calls        BIGINT NOT NULL DEFAULT 0,
    cost_usd     DOUBLE PRECISION NOT NULL DEFAULT 0,
    PRIMARY KEY (day, review_day, status, triggered_by, shard)
);

-- Notification deliveries per UTC day of creation, for the history's exact total.
CREATE TABLE notification_daily_counts (
    day               DATE NOT NULL,
    channel           TEXT NOT NULL,
    status            TEXT NOT NULL,
    notification_type TEXT NOT NULL,
    shard             SMALLINT NOT NULL,
    deliveries        BIGINT NOT NULL DEFAULT 0,
    PRIMARY KEY (day, channel, status, notification_type, shard)
);

CREATE FUNCTION reviewd_stats_shard(id UUID) RETURNS SMALLINT AS $$
    SELECT (get_byte(uuid_send(id), 15) % 8)::smallint
$$ LANGUAGE sql IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION reviewd_utc_day(at TIMESTAMPTZ) RETURNS DATE AS $$
    SELECT (at AT TIME ZONE 'UTC')::date
$$ LANGUAGE sql IMMUTABLE PARALLEL SAFE;

-- Adds a review's figures (sign 1) or takes them away (sign -1).
CREATE FUNCTION reviewd_add_review_stats(r reviews, sign INTEGER) RETURNS VOID AS $$
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
                        ELSE s.cost_usd + EXCLUDED.cost_usd END
$$ LANGUAGE sql;

-- Adds (sign 1) or takes away (sign -1) the cost of a review's calls under its status.
CREATE FUNCTION reviewd_add_review_calls(r reviews, sign INTEGER) RETURNS VOID AS $$
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
                        ELSE s.cost_usd + EXCLUDED.cost_usd END
$$ LANGUAGE sql;

CREATE FUNCTION reviewd_reviews_stats() RETURNS trigger AS $$
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
    IF (reviewd_utc_day(OLD.created_at), OLD.status, OLD.triggered_by)
       <= (reviewd_utc_day(NEW.created_at), NEW.status, NEW.triggered_by) THEN
        PERFORM reviewd_add_review_stats(OLD, -1);
        PERFORM reviewd_add_review_stats(NEW, 1);
    ELSE
        PERFORM reviewd_add_review_stats(NEW, 1);
        PERFORM reviewd_add_review_stats(OLD, -1);
    END IF;
    IF (OLD.created_at, OLD.status, OLD.triggered_by)
       IS DISTINCT FROM (NEW.created_at, NEW.status, NEW.triggered_by) THEN
        PERFORM reviewd_add_review_calls(OLD, -1);
        PERFORM reviewd_add_review_calls(NEW, 1);
    END IF;
    RETURN NULL;
END;
$$ LANGUAGE plpgsql;

CREATE TRIGGER reviews_stats_insert AFTER INSERT ON reviews
    FOR EACH ROW EXECUTE FUNCTION reviewd_reviews_stats();
-- Only the updates that move a figure: most (summary, timestamps) do not.
CREATE TRIGGER reviews_stats_update AFTER UPDATE OF created_at, status, triggered_by,
    comment_count, score, cost_usd ON reviews
    FOR EACH ROW
    WHEN ((OLD.created_at, OLD.status, OLD.triggered_by, OLD.comment_count, OLD.score, OLD.cost_usd)
          IS DISTINCT FROM
          (NEW.created_at, NEW.status, NEW.triggered_by, NEW.comment_count, NEW.score, NEW.cost_usd))
    EXECUTE FUNCTION reviewd_reviews_stats();
CREATE TRIGGER reviews_stats_delete BEFORE DELETE ON reviews
    FOR EACH ROW EXECUTE FUNCTION reviewd_reviews_stats();

-- Charges (sign 1) or refunds (sign -1) one call to its review and to the day's cost.
-- The review's update moves review_daily_stats through the review's own trigger.
CREATE FUNCTION reviewd_charge_call(c ai_call_logs, sign INTEGER) RETURNS VOID AS $$
DECLARE
    r_created_at TIMESTAMPTZ;
    r_status TEXT;
    r_triggered_by TEXT;
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
    RETURNING created_at, status, triggered_by INTO r_created_at, r_status, r_triggered_by;
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
END;
$$ LANGUAGE plpgsql;

CREATE FUNCTION reviewd_ai_call_logs_stats() RETURNS trigger AS $$
BEGIN
    IF TG_OP IN ('UPDATE', 'DELETE') THEN
        PERFORM reviewd_charge_call(OLD, -1);
    END IF;
    IF TG_OP IN ('INSERT', 'UPDATE') THEN
        PERFORM reviewd_charge_call(NEW, 1);
    END IF;
    RETURN NULL;
END;
$$ LANGUAGE plpgsql;

CREATE TRIGGER ai_call_logs_stats_insert AFTER INSERT ON ai_call_logs
    FOR EACH ROW EXECUTE FUNCTION reviewd_ai_call_logs_stats();
CREATE TRIGGER ai_call_logs_stats_update AFTER UPDATE OF review_id, cost_usd, created_at
    ON ai_call_logs
    FOR EACH ROW
    WHEN ((OLD.review_id, OLD.cost_usd, OLD.created_at)
          IS DISTINCT FROM (NEW.review_id, NEW.cost_usd, NEW.created_at))
    EXECUTE FUNCTION reviewd_ai_call_logs_stats();
CREATE TRIGGER ai_call_logs_stats_delete AFTER DELETE ON ai_call_logs
    FOR EACH ROW EXECUTE FUNCTION reviewd_ai_call_logs_stats();

CREATE FUNCTION reviewd_add_notification_count(n notification_history, sign INTEGER)
RETURNS VOID AS $$
    INSERT INTO notification_daily_counts AS s
        (day, channel, status, notification_type, shard, deliveries)
    VALUES (reviewd_utc_day(n.created_at), n.channel, n.status, n.notification_type,
            reviewd_stats_shard(n.id), sign)
    ON CONFLICT (day, channel, status, notification_type, shard) DO UPDATE SET
        deliveries = s.deliveries + EXCLUDED.deliveries
$$ LANGUAGE sql;

CREATE FUNCTION reviewd_notification_history_counts() RETURNS trigger AS $$
BEGIN
    IF TG_OP IN ('UPDATE', 'DELETE') THEN
        PERFORM reviewd_add_notification_count(OLD, -1);
    END IF;
    IF TG_OP IN ('INSERT', 'UPDATE') THEN
        PERFORM reviewd_add_notification_count(NEW, 1);
    END IF;
    RETURN NULL;
END;
$$ LANGUAGE plpgsql;

CREATE TRIGGER notification_history_counts_insert AFTER INSERT ON notification_history
    FOR EACH ROW EXECUTE FUNCTION reviewd_notification_history_counts();
CREATE TRIGGER notification_history_counts_update AFTER UPDATE OF created_at, channel, status,
    notification_type ON notification_history
    FOR EACH ROW
    WHEN ((OLD.created_at, OLD.channel, OLD.status, OLD.notification_type)
          IS DISTINCT FROM (NEW.created_at, NEW.channel, NEW.status, NEW.notification_type))
    EXECUTE FUNCTION reviewd_notification_history_counts();
CREATE TRIGGER notification_history_counts_delete AFTER DELETE ON notification_history
    FOR EACH ROW EXECUTE FUNCTION reviewd_notification_history_counts();

-- Recounts every rollup and every review's cost from the rows: the backfill below, and the
-- bench seed's after a load with the triggers off. Reviews keep their updated_at.
CREATE FUNCTION reviewd_rebuild_list_stats() RETURNS VOID AS $$
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

    TRUNCATE review_daily_stats, ai_cost_daily, notification_daily_counts;
    INSERT INTO review_daily_stats
        (day, status, triggered_by, shard, reviews, comments, score_sum, scored, cost_usd)
    SELECT reviewd_utc_day(created_at), status, triggered_by, reviewd_stats_shard(id), count(*),
           sum(comment_count), coalesce(sum(score), 0), count(score), coalesce(sum(cost_usd), 0)
    FROM reviews GROUP BY 1, 2, 3, 4;
    INSERT INTO ai_cost_daily (day, review_day, status, triggered_by, shard, calls, cost_usd)
    SELECT reviewd_utc_day(c.created_at), reviewd_utc_day(r.created_at), r.status,
           r.triggered_by, reviewd_stats_shard(r.id), count(*), sum(c.cost_usd)
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

SELECT reviewd_rebuild_list_stats();

-- The lists' order, (created_at DESC, id DESC), read straight from an index (the old ones
-- had created_at only, so each page sorted its ties). The project's index carries what the
-- stats of one project sum, for an index-only scan.
DROP INDEX reviews_created_at_idx;
CREATE INDEX reviews_created_id_idx ON reviews (created_at DESC, id DESC);
DROP INDEX reviews_project_created_idx;
CREATE INDEX reviews_project_created_idx ON reviews (project_id, created_at DESC, id DESC)
    INCLUDE (status, triggered_by, comment_count, score, cost_usd);
DROP INDEX notification_history_created_at_idx;
CREATE INDEX notification_history_created_id_idx ON notification_history (created_at DESC, id DESC);

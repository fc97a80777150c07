-- The overview's ratings chart, kept as the rows change like the list's stats (migration
-- `list_stats`): it counted the completed reviews of its 14 days by rating, from the index
-- of migration `overview_ratings`, 6 ms of the page's 15 at a million reviews. Only rated,
-- completed reviews have cells; sharded like `review_daily_stats` so that workers completing
-- reviews on the same day do not wait on one row.

CREATE TABLE review_daily_ratings (
    day            DATE NOT NULL,
    overall_rating TEXT NOT NULL,
    shard          SMALLINT NOT NULL,
    reviews        BIGINT NOT NULL DEFAULT 0,
    PRIMARY KEY (day, overall_rating, shard)
);

-- Adds a review to its cell (sign 1) or takes it away (sign -1), if it is counted.
CREATE FUNCTION reviewd_add_review_rating(r reviews, sign INTEGER) RETURNS VOID AS $$
    INSERT INTO review_daily_ratings AS s (day, overall_rating, shard, reviews)
    SELECT reviewd_utc_day(r.created_at), r.overall_rating, reviewd_stats_shard(r.id), sign
    WHERE r.status = 'completed' AND r.overall_rating IS NOT NULL
    ON CONFLICT (day, overall_rating, shard) DO UPDATE SET reviews = s.reviews + EXCLUDED.reviews
$$ LANGUAGE sql;

CREATE FUNCTION reviewd_reviews_ratings() RETURNS trigger AS $$
BEGIN
    IF TG_OP = 'DELETE' THEN
        -- BEFORE DELETE, as the stats' trigger: a delete then takes the rating cell before
        -- the stats cell (names order the triggers), as inserts and updates do.
        PERFORM reviewd_add_review_rating(OLD, -1);
        RETURN OLD;
    ELSIF TG_OP = 'INSERT' THEN
        PERFORM reviewd_add_review_rating(NEW, 1);
    -- Two cells change in key order, so that two reviews moving between the same cells in
    -- opposite directions cannot deadlock.
    ELSIF (reviewd_utc_day(OLD.created_at), coalesce(OLD.overall_rating, ''))
          <= (reviewd_utc_day(NEW.created_at), coalesce(NEW.overall_rating, '')) THEN
        PERFORM reviewd_add_review_rating(OLD, -1);
        PERFORM reviewd_add_review_rating(NEW, 1);
    ELSE
        PERFORM reviewd_add_review_rating(NEW, 1);
        PERFORM reviewd_add_review_rating(OLD, -1);
    END IF;
    RETURN NULL;
END;
$$ LANGUAGE plpgsql;

-- The conditions keep the function out of every write that cannot move a count: a review
-- is inserted pending and completed by an update.
CREATE TRIGGER reviews_ratings_insert AFTER INSERT ON reviews
    FOR EACH ROW WHEN (NEW.status = 'completed' AND NEW.overall_rating IS NOT NULL)
    EXECUTE FUNCTION reviewd_reviews_ratings();
CREATE TRIGGER reviews_ratings_update AFTER UPDATE OF created_at, status, overall_rating ON reviews
    FOR EACH ROW
    WHEN (((OLD.status = 'completed' AND OLD.overall_rating IS NOT NULL)
           OR (NEW.status = 'completed' AND NEW.overall_rating IS NOT NULL))
          AND (OLD.created_at, OLD.status, OLD.overall_rating)
              IS DISTINCT FROM (NEW.created_at, NEW.status, NEW.overall_rating))
    EXECUTE FUNCTION reviewd_reviews_ratings();
CREATE TRIGGER reviews_ratings_delete BEFORE DELETE ON reviews
    FOR EACH ROW WHEN (OLD.status = 'completed' AND OLD.overall_rating IS NOT NULL)
    EXECUTE FUNCTION reviewd_reviews_ratings();

-- The list's rebuild (the bench seed's, and a repair) recounts the ratings too: the rebuild
-- of the other rollups keeps its body under a new name.
ALTER FUNCTION reviewd_rebuild_list_stats() RENAME TO reviewd_rebuild_review_rollups;

CREATE FUNCTION reviewd_rebuild_rating_rollup() RETURNS VOID AS $$
    TRUNCATE review_daily_ratings;
    INSERT INTO review_daily_ratings (day, overall_rating, shard, reviews)
    SELECT reviewd_utc_day(created_at), overall_rating, reviewd_stats_shard(id), count(*)
    FROM reviews WHERE status = 'completed' AND overall_rating IS NOT NULL
    GROUP BY 1, 2, 3;
$$ LANGUAGE sql;

CREATE FUNCTION reviewd_rebuild_list_stats() RETURNS VOID AS $$
    SELECT reviewd_rebuild_review_rollups();
    SELECT reviewd_rebuild_rating_rollup();
$$ LANGUAGE sql;

SELECT reviewd_rebuild_rating_rollup();

-- Read by the chart alone, which the rollup now serves; it cost a write at every completion.
DROP INDEX reviews_completed_rating_idx;

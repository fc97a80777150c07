CREATE INDEX reviews_completed_rating_idx ON reviews (created_at DESC)
    INCLUDE (overall_rating) WHERE status = 'completed';
DROP FUNCTION reviewd_rebuild_list_stats();
DROP FUNCTION reviewd_rebuild_rating_rollup();
ALTER FUNCTION reviewd_rebuild_review_rollups() RENAME TO reviewd_rebuild_list_stats;
DROP TRIGGER reviews_ratings_delete ON reviews;
DROP TRIGGER reviews_ratings_update ON reviews;
DROP TRIGGER reviews_ratings_insert ON reviews;
DROP FUNCTION reviewd_reviews_ratings();
DROP FUNCTION reviewd_add_review_rating(reviews, INTEGER);
DROP TABLE review_daily_ratings;

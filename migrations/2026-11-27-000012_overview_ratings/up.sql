-- The overview's ratings chart counts the completed reviews of its last days by
-- rating: read from this index alone (index-only), not from the reviews' rows.
CREATE INDEX reviews_completed_rating_idx ON reviews (created_at DESC)
    INCLUDE (overall_rating) WHERE status = 'completed';

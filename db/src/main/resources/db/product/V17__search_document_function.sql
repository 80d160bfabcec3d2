-- Issue 17: the search document of a public item, written once. The live public-view refresh
-- (ProjectionRepository) and the rebuild's bulk load (PublicViewRows) both call it. A single-SELECT SQL function,
-- IMMUTABLE, neither STRICT nor SET nor SECURITY DEFINER, its parameters plain columns or a cheap -> at the call
-- sites: PostgreSQL inlines it into the calling statement, so the statements run the same expression as before
-- (EXPLAIN VERBOSE shows setweight(to_tsvector(...)), not a call of this function). Keep it inlinable.
--
-- attributes: the item's attributes object at the published revision; item_id: the item's id.
-- Weights: A the name, B every string value of the attributes, C the id (simple dictionary: no stemming).
CREATE FUNCTION search_document(attributes jsonb, item_id text) RETURNS tsvector
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$
    SELECT setweight(to_tsvector('english', coalesce(attributes ->> 'name', '')), 'A')
           || setweight(jsonb_to_tsvector('english', attributes, '["string"]'), 'B')
           || setweight(to_tsvector('simple', item_id), 'C')
$$;

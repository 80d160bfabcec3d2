package com.acme.catalog.product.rebuild;

import java.util.Locale;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

/**
 * The derived rows of a loading generation, computed set-wise from its plain tables: the items each release names,
 * and the public view with its search documents ({@code search_document}, product migration V17, as
 * {@code ProjectionRepository} writes them). Each statement runs in the caller's transaction.
 */
@Repository
class PublicViewRows {

    /** The items each release names, at the highest revision it lists. */
    private static final String SQL_DERIVE_RELEASE_ITEMS = """
            INSERT INTO release_item_g%1$d (generation_id, release_id, item_id, revision)
            SELECT r.generation_id, r.release_id, ref ->> 'itemId', max((ref ->> 'revision')::integer)
              FROM release_g%1$d r CROSS JOIN LATERAL jsonb_array_elements(r.items) AS ref
             GROUP BY r.generation_id, r.release_id, ref ->> 'itemId'
            """;
    /**
     * Per item named by a PUBLIC release, the latest such release (greatest (epoch, position) of its current
     * revision) and the revision it names: the winner of {@code ProjectionRepository}'s public-view rule, before the
     * item's own state is looked at. {@code %2$s}: an extra condition on the item id.
     */
    private static final String WINNERS = """
            SELECT DISTINCT ON (ri.item_id) ri.generation_id, ri.item_id, ri.revision, r.release_id, r.epoch,
                   r.position
              FROM release_item_g%1$d ri JOIN release_g%1$d r ON r.release_id = ri.release_id
             WHERE r.visibility = 'PUBLIC' %2$s
             ORDER BY ri.item_id, r.epoch DESC, r.position DESC
            """;
    /**
     * One half ({@code %2$d}: 0 or 1, by a hash of the item id) of the public view of the items whose winning
     * release names their current revision (the usual case), with the attributes of the item row itself: this
     * needs no revision history, so it runs while the history is still being indexed. ShadowLoaderIT checks that
     * the two statements together equal {@code ProjectionRepository}'s rule.
     */
    private static final String SQL_PUBLIC_VIEW = """
            INSERT INTO public_item_g%1$d (generation_id, item_id, revision, release_id, release_epoch,
                                           release_position, attributes, document)
            SELECT w.generation_id, w.item_id, w.revision, w.release_id, w.epoch, w.position, i.attributes,
                   search_document(i.attributes, w.item_id)
              FROM (%3$s) w
              JOIN item_g%1$d i ON i.item_id = w.item_id AND i.revision = w.revision AND NOT i.deleted
            """;
    /**
     * The rest of the public view: items whose winning release names an older revision than their current one
     * (updated after the release), with the attributes of that revision from the history, looked up by its
     * primary key (built before this runs). A winner naming a deletion revision publishes nothing; the resolver
     * never accepts such a release.
     */
    private static final String SQL_PUBLIC_VIEW_OLDER_REVISIONS = """
            INSERT INTO public_item_g%1$d (generation_id, item_id, revision, release_id, release_epoch,
                                           release_position, attributes, document)
            SELECT w.generation_id, w.item_id, w.revision, w.release_id, w.epoch, w.position,
                   a.content -> 'attributes', search_document(a.content -> 'attributes', w.item_id)
              FROM (%2$s) w
              JOIN item_g%1$d i ON i.item_id = w.item_id AND i.revision <> w.revision AND NOT i.deleted
              JOIN aggregate_revision_g%1$d a ON a.aggregate_type = 'item' AND a.aggregate_id = w.item_id
                                             AND a.revision = w.revision AND NOT a.deleted
            """;

    private final JdbcClient jdbc;

    PublicViewRows(JdbcClient jdbc) {
        this.jdbc = jdbc;
    }

    /** Fills generation {@code g}'s release items from its releases. */
    void deriveReleaseItems(long g) {
        jdbc.sql(String.format(Locale.ROOT, SQL_DERIVE_RELEASE_ITEMS, g)).update();
    }

    /** Writes {@code half} (0 or 1) of the public rows of items released at their current revision. */
    void writeCurrentRevisionHalf(long g, int half) {
        String winners = String.format(Locale.ROOT, WINNERS, g, "AND hashtext(ri.item_id) & 1 = " + half);
        jdbc.sql(String.format(Locale.ROOT, SQL_PUBLIC_VIEW, g, half, winners)).update();
    }

    /** Writes the public rows of items released at an older revision (needs the history's primary key). */
    void writeOlderRevisions(long g) {
        jdbc.sql(String.format(Locale.ROOT, SQL_PUBLIC_VIEW_OLDER_REVISIONS, g,
                String.format(Locale.ROOT, WINNERS, g, ""))).update();
    }
}

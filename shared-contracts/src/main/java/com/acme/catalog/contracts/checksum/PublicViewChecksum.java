package com.acme.catalog.contracts.checksum;

import java.util.List;

import com.acme.catalog.contracts.checksum.AcceptedStateChecksum.Column;
import com.acme.catalog.contracts.checksum.AcceptedStateChecksum.Kind;

/**
 * The versioned canonical checksum profile of what public readers are served, {@value #PROFILE}: one table,
 * {@value #TABLE}, with one row per publicly visible item, encoded exactly like {@link AcceptedStateChecksum}
 * (rows in ascending byte order of the item id, fields tab-separated, a JSON string literal per TEXT field, the
 * JSON field as PostgreSQL's {@code jsonb::text}).
 *
 * <p>The rule both services compute it by (the resolver from accepted state and the releases' current revisions,
 * the product from the rows its public endpoints read): an item is public when some release whose current
 * revision is {@code PUBLIC} names it and the item's current revision is not a deletion. It is shown as the
 * revision named by its latest PUBLIC release, the one whose current revision has the greatest
 * {@code (epoch, position)}; a release that lists an item twice names it at the highest revision listed. The row
 * is {@code item_id, revision, release_id, attributes}: the named revision, that release, and the item's
 * attributes at that revision.
 */
public final class PublicViewChecksum {

    public static final String PROFILE = "public-view-v1";
    /** The profile's one table, as named in the checksum answers. */
    public static final String TABLE = "publicItems";
    public static final List<Column> COLUMNS = List.of(new Column("item_id", Kind.TEXT),
            new Column("revision", Kind.INT), new Column("release_id", Kind.TEXT),
            new Column("attributes", Kind.JSON));

    private PublicViewChecksum() {
    }
}

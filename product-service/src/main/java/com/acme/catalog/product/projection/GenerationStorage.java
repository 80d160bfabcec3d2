package com.acme.catalog.product.projection;

/**
 * Where a generation's rows live (docs/streams.md, "How generations are stored"). Every projection table is
 * RANGE-partitioned by {@code generation_id}:
 * <ul>
 *   <li>a <em>dedicated</em> generation {@code g} (a rebuild's bulk load) has a partition of its own per table,
 *       {@code <table>_g<g>}, created, filled and indexed before it is attached, and retired by detaching and
 *       dropping it;</li>
 *   <li>a <em>shared</em> generation (a stream opened empty, which catches up from the resolver's retained events)
 *       has an id of {@link #SHARED_BASE} or more, and its rows live in the tables' one shared partition
 *       {@code <table>_shared}: opening it is an INSERT of its generation row, retiring it a DELETE of its rows.</li>
 * </ul>
 * The id alone tells which: the partition bounds (migration V28) and this class agree on {@link #SHARED_BASE}.
 */
public final class GenerationStorage {

    /** The first shared generation id (the shared partitions' lower bound, the sequence's start). */
    public static final long SHARED_BASE = 1_000_000_000_000_000L;

    private GenerationStorage() {
    }

    /** @return true when generation {@code g}'s rows live in the shared partitions */
    public static boolean isShared(long generationId) {
        return generationId >= SHARED_BASE;
    }

    /** @return the suffix of the partition holding generation {@code g}'s rows: {@code g<g>} or {@code shared} */
    public static String partitionSuffix(long generationId) {
        if (generationId <= 0) {
            throw new IllegalArgumentException("generation ids are positive, not " + generationId);
        }
        return isShared(generationId) ? "shared" : "g" + generationId;
    }

    /** @return the partition of {@code table} holding generation {@code g}'s rows (e.g. {@code item_g12}) */
    public static String partitionOf(String table, long generationId) {
        return table + "_" + partitionSuffix(generationId);
    }
}

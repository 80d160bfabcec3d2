package com.acme.catalog.resolver.bootstrap;

/** Progress of one import, for a progress line or a test that needs to act between steps. */
public interface ImportListener {

    ImportListener NONE = new ImportListener() {
    };

    /** The import lock is held and the destination was found empty; nothing is written yet. */
    default void destinationChecked() {
    }

    /** The file passed validation. */
    default void validated(int events) {
    }

    /** Under the import fence, the stream was reset to the new, empty {@code epoch} (an import with a reset). */
    default void reset(long epoch) {
    }

    /** The import fence is held and the stream is still empty: from now on every other write of it is refused. */
    default void fenced() {
    }

    /** Chunk {@code chunk} (1-based) committed; {@code committedEvents} of {@code totalEvents} are now written. */
    default void chunkCommitted(int chunk, long committedEvents, int totalEvents) {
    }
}

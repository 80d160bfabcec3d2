package com.acme.catalog.contracts.objectstore;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.List;

/**
 * Where exports live: a local directory (the default) or an S3 bucket. Objects are written and read as streams,
 * never held whole in memory, and every write reports the byte count and SHA-256 of exactly what was stored.
 */
public interface ObjectStore {

    /**
     * Stores the bytes {@code body} writes under {@code key}, replacing any object there. A reader never sees a
     * partly written object.
     *
     * @return size and SHA-256 of the stored bytes; never null
     */
    StoredObject put(String key, String contentType, BodyWriter body) throws IOException;

    /** Opens the object for reading; the caller closes the stream. */
    InputStream get(String key) throws IOException;

    boolean exists(String key) throws IOException;

    /** Deletes the object if it exists. */
    void delete(String key) throws IOException;

    /** Keys under {@code prefix}, in ascending order. */
    List<String> list(String prefix) throws IOException;

    /** A description for logs, e.g. {@code file:/data/objects} or {@code s3://bucket/prefix}. */
    String describe();

    /** Writes an object's bytes. */
    @FunctionalInterface
    interface BodyWriter {
        void writeTo(OutputStream out) throws IOException;
    }

    /** What was stored. */
    record StoredObject(String key, long bytes, String sha256) {
    }

    /** The object does not exist. */
    final class NoSuchObjectException extends IOException {
        public NoSuchObjectException(String key) {
            super("no object " + key);
        }
    }
}

package com.acme.catalog.resolver.bootstrap;

import java.nio.file.Path;

import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.ObjectReader;
import tools.jackson.databind.node.ObjectNode;

/**
 * Streams the elements of a top-level JSON array one at a time: only the current event is ever a tree in memory.
 * Reports each element's size in input bytes and, once the array is read to its end, the file's SHA-256.
 */
final class EventsFileReader implements AutoCloseable {

    private final ObjectReader elements;
    private final EventArray array;

    EventsFileReader(ObjectMapper json, Path file) {
        // each element is read on its own while the array goes on: what follows it is not "trailing"
        this.elements = json.reader().without(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);
        this.array = new EventArray(json, file);
    }

    /**
     * @return the next event, or null after the last one
     * @throws RejectedEventException {@code INVALID_BODY} when the input is not a JSON array of objects
     */
    RawEvent next() {
        return array.next((index, start) -> {
            JsonNode node = elements.readTree(array.parser());
            return new RawEvent(index, (ObjectNode) node, array.offset() - start);
        });
    }

    /** @return lowercase hex SHA-256 of every byte read; complete only after {@link #next()} returned null */
    String sha256() {
        return array.sha256();
    }

    @Override
    public void close() {
        array.close();
    }

    /** One array element as read: its 0-based index, its tree and its size in input bytes. */
    record RawEvent(int index, ObjectNode node, long bytes) {
    }
}

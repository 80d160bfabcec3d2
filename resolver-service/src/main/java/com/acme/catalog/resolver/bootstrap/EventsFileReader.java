package com.acme.catalog.resolver.bootstrap;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.DigestInputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

import com.acme.catalog.contracts.ProblemCode;

import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
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
    private final InputStream in;
    private final MessageDigest sha256;
    private final JsonParser parser;
    private int next = -1;
    private boolean ended;

    EventsFileReader(ObjectMapper json, Path file) {
        // each element is read on its own while the array goes on: what follows it is not "trailing"
        this.elements = json.reader().without(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);
        try {
            this.sha256 = MessageDigest.getInstance("SHA-256");
            this.in = new DigestInputStream(new BufferedInputStream(Files.newInputStream(file), 1 << 16), sha256);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + file, e);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
        this.parser = json.createParser(in);
    }

    /**
     * @return the next event, or null after the last one
     * @throws RejectedEventException {@code INVALID_BODY} when the input is not a JSON array of objects
     */
    RawEvent next() {
        if (ended) {
            return null;
        }
        Integer reading = next < 0 ? null : Integer.valueOf(next);
        try {
            if (next < 0) {
                if (parser.nextToken() != JsonToken.START_ARRAY) {
                    throw new RejectedEventException(ProblemCode.INVALID_BODY, null, null,
                            "the file must be a JSON array of events");
                }
                next = 0;
                reading = 0;
            }
            JsonToken token = parser.nextToken();
            if (token == JsonToken.END_ARRAY) {
                ended = true;
                reading = null;
                if (parser.nextToken() != null) {
                    throw new RejectedEventException(ProblemCode.INVALID_BODY, null, null,
                            "content after the closing ] of the events array");
                }
                return null;
            }
            int index = next++;
            if (token != JsonToken.START_OBJECT) {
                throw new RejectedEventException(ProblemCode.INVALID_BODY, index, null, "is not a JSON object");
            }
            long start = parser.currentTokenLocation().getByteOffset();
            JsonNode node = elements.readTree(parser);
            long end = parser.currentLocation().getByteOffset();
            return new RawEvent(index, (ObjectNode) node, end - start);
        } catch (JacksonException e) {
            throw new RejectedEventException(ProblemCode.INVALID_BODY, reading, null,
                    "not valid JSON (" + e.getOriginalMessage() + " at byte "
                            + parser.currentLocation().getByteOffset() + ")");
        }
    }

    /** @return lowercase hex SHA-256 of every byte read; complete only after {@link #next()} returned null */
    String sha256() {
        return HexFormat.of().formatHex(sha256.digest());
    }

    @Override
    public void close() {
        try {
            parser.close();
            in.close();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** One array element as read: its 0-based index, its tree and its size in input bytes. */
    record RawEvent(int index, ObjectNode node, long bytes) {
    }
}

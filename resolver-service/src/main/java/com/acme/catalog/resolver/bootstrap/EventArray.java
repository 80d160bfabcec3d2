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
import tools.jackson.databind.ObjectMapper;

/**
 * The framing both passes over an events file share: a top-level JSON array whose elements must be objects, read
 * one element at a time from a streaming parser, the file's SHA-256 taken over every byte read. How an element is
 * read (a tree, or a token walk) is the caller's {@link Element}; malformed JSON anywhere is {@code INVALID_BODY}
 * naming the element being read and the byte offset.
 */
final class EventArray implements AutoCloseable {

    /** Reads the element whose {@code START_OBJECT} the parser is on, through its {@code END_OBJECT}. */
    @FunctionalInterface
    interface Element<T> {
        T read(int index, long startByte);
    }

    private final InputStream in;
    private final MessageDigest sha256;
    private final JsonParser parser;
    private int next = -1;
    private boolean ended;

    EventArray(ObjectMapper json, Path file) {
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

    /** The parser, for an {@link Element} to read its element with. */
    JsonParser parser() {
        return parser;
    }

    /** The parser's position in input bytes. */
    long offset() {
        return parser.currentLocation().getByteOffset();
    }

    /**
     * @return what {@code element} read of the next element, or null after the last one
     * @throws RejectedEventException {@code INVALID_BODY} when the input is not a JSON array of objects
     */
    <T> T next(Element<T> element) {
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
            return element.read(index, parser.currentTokenLocation().getByteOffset());
        } catch (JacksonException e) {
            throw new RejectedEventException(ProblemCode.INVALID_BODY, reading, null,
                    "not valid JSON (" + e.getOriginalMessage() + " at byte " + offset() + ")");
        }
    }

    /** @return lowercase hex SHA-256 of every byte read; complete only after {@link #next} returned null */
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
}

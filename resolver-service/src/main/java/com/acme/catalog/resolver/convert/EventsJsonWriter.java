package com.acme.catalog.resolver.convert;

import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.Writer;
import java.io.OutputStreamWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.DigestOutputStream;
import java.security.MessageDigest;
import java.util.EnumMap;
import java.util.HexFormat;
import java.util.Map;

import com.acme.catalog.contracts.ChainDigest;
import com.acme.catalog.contracts.EventType;

/**
 * Writes the bootstrap import's events.json (docs/bootstrap-import.md "The input file"): a top-level JSON array, one
 * event per line, members in a fixed order, nothing but {@code specversion}, {@code id}, {@code type},
 * {@code subject}, {@code aggregatetype}, {@code aggregateversion} and {@code data}. The bytes depend only on what
 * is written and the ids, so the same snapshot converts to the same file. Counts, size and SHA-256 of what was
 * written are kept for the summary.
 */
final class EventsJsonWriter implements AutoCloseable {

    private final DigestOutputStream digesting;
    private final Writer out;
    private final EventIds ids;
    private final Map<EventType, Long> byType = new EnumMap<>(EventType.class);
    private final StringBuilder line = new StringBuilder(512);
    private long events;
    private long bytes;
    private boolean finished;

    EventsJsonWriter(Path file, EventIds ids) throws IOException {
        MessageDigest sha = ChainDigest.sha256();
        this.digesting = new DigestOutputStream(new BufferedOutputStream(Files.newOutputStream(file), 1 << 16), sha);
        this.out = new OutputStreamWriter(new CountingStream(digesting), StandardCharsets.UTF_8);
        this.ids = ids;
        out.write("[");
    }

    /**
     * Writes one event.
     *
     * @param subject the aggregate id, already checked to be an id ({@code [A-Za-z0-9._:-]}, so never escaped)
     * @param data    the payload as JSON object text, written as it is
     */
    void write(EventType type, String subject, int version, String data) throws IOException {
        line.setLength(0);
        line.append(events == 0 ? "\n" : ",\n");
        line.append("{\"specversion\":\"1.0\",\"id\":\"").append(ids.next())
                .append("\",\"type\":\"").append(type.name())
                .append("\",\"subject\":\"").append(subject)
                .append("\",\"aggregatetype\":\"").append(type.aggregateType())
                .append("\",\"aggregateversion\":").append(version)
                .append(",\"data\":").append(data).append('}');
        out.append(line);
        events++;
        byType.merge(type, 1L, Long::sum);
    }

    /** Closes the array and the file. */
    Written finish() throws IOException {
        out.write("\n]\n");
        out.flush();
        finished = true;
        out.close();
        return new Written(events, new EnumMap<>(byType), bytes,
                HexFormat.of().formatHex(digesting.getMessageDigest().digest()));
    }

    @Override
    public void close() throws IOException {
        if (!finished) {
            out.close();
        }
    }

    /** What a finished file holds: its event count, events by type, size and SHA-256. */
    record Written(long events, Map<EventType, Long> byType, long bytes, String sha256) {
    }

    private final class CountingStream extends OutputStream {
        private final OutputStream target;

        CountingStream(OutputStream target) {
            this.target = target;
        }

        @Override
        public void write(int b) throws IOException {
            target.write(b);
            bytes++;
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            target.write(b, off, len);
            bytes += len;
        }

        @Override
        public void flush() throws IOException {
            target.flush();
        }

        @Override
        public void close() throws IOException {
            target.close();
        }
    }
}

package com.acme.catalog.resolver.bootstrap;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;

import com.acme.catalog.contracts.AggregateIds;
import com.acme.catalog.contracts.EventType;
import com.acme.catalog.contracts.JsonLimits;
import com.acme.catalog.resolver.bootstrap.EventsFileReader.RawEvent;
import com.acme.catalog.resolver.stream.Change;

import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * The validation pass's reader: walks the events array token by token and keeps of each event only what the
 * cross-event checks need ({@link Scanned}), skipping payloads without building them. It only ever <em>accepts</em>
 * an event on this fast path when the event is plainly well formed (each member once, of the expected JSON type,
 * every rule of {@link SnapshotEvent#from} met); anything else (a rule broken, a duplicate member, an
 * {@code expectedRevision}, an unusual number) is handed to {@link SnapshotEvent#from} itself on the event's bytes,
 * read again from the file, which accepts it or names the problem exactly as the writing pass would. Payloads are
 * skipped through {@link JsonLimits#skipChecked}, so a value past a limit (or with a U+0000) is judged exactly too,
 * and so is every event large enough that its wire could pass {@link JsonLimits#MAX_EVENT_WIRE_BYTES}. So the two
 * passes cannot disagree on a file: the fast path is only a cheaper way to reach the same verdict.
 */
final class EventsScanner implements AutoCloseable {

    private final ObjectMapper json;
    private final Path file;
    private final EventArray array;
    private final JsonParser parser;
    private final long maxEventBytes;
    private FileChannel channel;

    EventsScanner(ObjectMapper json, Path file, long maxEventBytes) {
        this.json = json;
        this.file = file;
        this.maxEventBytes = maxEventBytes;
        this.array = new EventArray(json, file);
        this.parser = array.parser();
    }

    /**
     * @return the next event, or null after the last one
     * @throws RejectedEventException as {@link EventsFileReader#next} and {@link SnapshotEvent#from} would
     */
    Scanned next() {
        return array.next((index, start) -> {
            Scanned fast = scanEnvelope(index);
            long bytes = array.offset() - start;
            // a large event may become a wire over the limit: the exact path measures it
            if (fast != null && bytes <= maxEventBytes && bytes <= SnapshotEvent.WIRE_SAFE_BYTES) {
                return fast.withBytes(bytes);
            }
            return slow(index, start, bytes);
        });
    }

    /** The exact rules, on the event's bytes read again: accepts it or throws what the writing pass would. */
    private Scanned slow(int index, long start, long bytes) {
        ObjectNode node;
        try {
            if (channel == null) {
                channel = FileChannel.open(file, StandardOpenOption.READ);
            }
            ByteBuffer buffer = ByteBuffer.allocate(Math.toIntExact(bytes));
            long at = start;
            while (buffer.hasRemaining()) {
                int n = channel.read(buffer, at);
                if (n < 0) {
                    throw new IOException("file shorter than its parse");
                }
                at += n;
            }
            node = (ObjectNode) json.readTree(buffer.array());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + file, e);
        }
        SnapshotEvent e = SnapshotEvent.from(new RawEvent(index, node, bytes), maxEventBytes);
        Change c = e.change();
        List<Change.ItemRef> refs = c instanceof Change.PutRelease r ? r.items() : List.of();
        return new Scanned(index, e.id(), c.aggregateType(), c.aggregateId(), e.aggregateVersion(),
                c instanceof Change.DeleteItem, refs, bytes);
    }

    /**
     * Reads the event's members up to its closing brace.
     *
     * @return the event when it is plainly acceptable, null when {@link #slow} must decide
     */
    private Scanned scanEnvelope(int index) {
        String id = null;
        String spec = null;
        String type = null;
        String subject = null;
        String aggregateType = null;
        int version = 0;
        Data data = null;
        boolean doubt = false;
        int seen = 0;
        JsonToken t;
        while ((t = parser.nextToken()) == JsonToken.PROPERTY_NAME) {
            String name = parser.currentName();
            JsonToken v = parser.nextToken();
            int bit = switch (name) {
                case "id" -> 1;
                case "specversion" -> 2;
                case "type" -> 4;
                case "subject" -> 8;
                case "aggregatetype" -> 16;
                case "aggregateversion" -> 32;
                case "data" -> 64;
                default -> 0;
            };
            if (bit == 0) {
                doubt |= JsonLimits.skipChecked(parser) != null;
                continue;
            }
            if ((seen & bit) != 0) {
                doubt = true;
            }
            seen |= bit;
            if (bit != 64) {
                parser.skipChildren(); // a container where a scalar belongs: consume it, the exact path judges
            }
            switch (bit) {
                case 1 -> {
                    id = v == JsonToken.VALUE_STRING ? parser.getString() : null;
                    doubt |= JsonLimits.textProblem(id) != null;
                }
                case 2 -> spec = v == JsonToken.VALUE_STRING ? parser.getString() : null;
                case 4 -> type = v == JsonToken.VALUE_STRING ? parser.getString() : null;
                case 8 -> subject = v == JsonToken.VALUE_STRING ? parser.getString() : null;
                case 16 -> aggregateType = v == JsonToken.VALUE_STRING ? parser.getString() : null;
                case 32 -> version = v == JsonToken.VALUE_NUMBER_INT
                        && parser.getNumberType() == JsonParser.NumberType.INT ? parser.getIntValue() : 0;
                default -> {
                    if (v == JsonToken.START_OBJECT && type != null && EventType.parse(type) != null) {
                        data = scanData(EventType.parse(type));
                    } else {
                        parser.skipChildren();
                        data = null;
                        doubt = true;
                    }
                }
            }
        }
        if (t != JsonToken.END_OBJECT) {
            throw new IllegalStateException("unexpected " + t + " in an event object");
        }
        if (doubt || data == null || data.doubt || id == null || id.isEmpty()
                || id.length() > SnapshotEvent.MAX_ID_LENGTH || !SnapshotEvent.SPEC_VERSION.equals(spec)
                || subject == null || subject.isEmpty() || aggregateType == null || version < 1) {
            return null;
        }
        EventType eventType = EventType.parse(type);
        if (eventType == null || eventType == EventType.DecisionRecorded
                || !eventType.aggregateType().equals(aggregateType) || !validId(subject)) {
            return null;
        }
        return new Scanned(index, id, aggregateType, subject, version, eventType == EventType.ItemDeleted,
                data.refs, 0);
    }

    /** The members of {@code data} that {@link SnapshotEvent#from} reads for this type; the rest is skipped. */
    private Data scanData(EventType type) {
        Data d = new Data();
        boolean attributes = false;
        boolean rules = false;
        String source = null;
        String target = null;
        String visibility = null;
        boolean items = false;
        int seen = 0;
        JsonToken t;
        while ((t = parser.nextToken()) == JsonToken.PROPERTY_NAME) {
            String name = parser.currentName();
            JsonToken v = parser.nextToken();
            int bit = switch (type) {
                case ItemUpserted -> switch (name) {
                    case "attributes" -> 1;
                    case "expectedRevision" -> 2;
                    default -> 0;
                };
                case MappingUpserted -> switch (name) {
                    case "source" -> 1;
                    case "target" -> 2;
                    default -> 0;
                };
                case PolicyUpserted -> "rules".equals(name) ? 1 : 0;
                case ReleasePublished -> switch (name) {
                    case "visibility" -> 1;
                    case "items" -> 2;
                    default -> 0;
                };
                default -> 0;
            };
            if (bit == 0) {
                d.doubt |= JsonLimits.skipChecked(parser) != null;
                continue;
            }
            if ((seen & bit) != 0) {
                d.doubt = true;
            }
            seen |= bit;
            switch (type) {
                case ItemUpserted -> {
                    attributes = bit == 1 && v == JsonToken.START_OBJECT;
                    d.doubt |= bit == 2; // an expectedRevision has rules of its own: let the exact path judge
                    d.doubt |= JsonLimits.skipChecked(parser) != null;
                }
                case MappingUpserted -> {
                    String s = v == JsonToken.VALUE_STRING ? parser.getString() : null;
                    parser.skipChildren();
                    if (bit == 1) {
                        source = s;
                    } else {
                        target = s;
                    }
                }
                case PolicyUpserted -> {
                    rules = v == JsonToken.START_OBJECT;
                    d.doubt |= JsonLimits.skipChecked(parser) != null;
                }
                case ReleasePublished -> {
                    if (bit == 1) {
                        visibility = v == JsonToken.VALUE_STRING ? parser.getString() : null;
                        parser.skipChildren();
                    } else if (v == JsonToken.START_ARRAY) {
                        items = scanItems(d);
                    } else {
                        parser.skipChildren();
                        items = false;
                    }
                }
                default -> parser.skipChildren();
            }
        }
        if (t != JsonToken.END_OBJECT) {
            throw new IllegalStateException("unexpected " + t + " in an event's data");
        }
        boolean ok = switch (type) {
            case ItemUpserted -> attributes;
            case ItemDeleted -> true;
            case MappingUpserted -> text(source) && text(target);
            case PolicyUpserted -> rules;
            case ReleasePublished -> items && ("PRIVATE".equals(visibility) || "PUBLIC".equals(visibility));
            default -> false;
        };
        d.doubt |= !ok;
        return d;
    }

    /** The release's item references, when every one is plainly {@code {"itemId": id, "revision": n >= 1}}. */
    private boolean scanItems(Data d) {
        List<Change.ItemRef> refs = new ArrayList<>();
        boolean ok = true;
        JsonToken t;
        while ((t = parser.nextToken()) != JsonToken.END_ARRAY) {
            if (t != JsonToken.START_OBJECT) {
                parser.skipChildren();
                ok = false;
                continue;
            }
            String itemId = null;
            int revision = 0;
            int seen = 0;
            while (parser.nextToken() == JsonToken.PROPERTY_NAME) {
                String name = parser.currentName();
                JsonToken v = parser.nextToken();
                if (name.equals("itemId") || name.equals("revision")) {
                    parser.skipChildren();
                }
                if (name.equals("itemId")) {
                    ok &= (seen & 1) == 0;
                    seen |= 1;
                    itemId = v == JsonToken.VALUE_STRING ? parser.getString() : null;
                } else if (name.equals("revision")) {
                    ok &= (seen & 2) == 0;
                    seen |= 2;
                    revision = v == JsonToken.VALUE_NUMBER_INT
                            && parser.getNumberType() == JsonParser.NumberType.INT ? parser.getIntValue() : 0;
                } else {
                    ok &= JsonLimits.skipChecked(parser) == null;
                }
            }
            if (itemId == null || revision < 1 || !validId(itemId)) {
                ok = false;
            } else {
                refs.add(new Change.ItemRef(itemId, revision));
            }
        }
        ok &= refs.size() <= 10_000;
        d.refs = List.copyOf(refs);
        return ok;
    }

    private static boolean text(String s) {
        return s != null && !s.isEmpty() && s.length() <= 4096 && JsonLimits.textProblem(s) == null;
    }

    /** {@link AggregateIds#require}'s rule (1-128 characters of {@code [A-Za-z0-9._:-]}) without a regex. */
    static boolean validId(String id) {
        int n = id.length();
        if (n < 1 || n > 128) {
            return false;
        }
        for (int i = 0; i < n; i++) {
            char c = id.charAt(i);
            boolean ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.'
                    || c == '_' || c == ':' || c == '-';
            if (!ok) {
                return false;
            }
        }
        return true;
    }

    /** @return lowercase hex SHA-256 of every byte read; complete only after {@link #next()} returned null */
    String sha256() {
        return array.sha256();
    }

    @Override
    public void close() {
        try {
            array.close();
            if (channel != null) {
                channel.close();
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static final class Data {
        boolean doubt;
        List<Change.ItemRef> refs = List.of();
    }

    /**
     * What the cross-event checks need of one event.
     *
     * @param delete true for an {@code ItemDeleted}
     * @param refs   the item revisions a release names, in order (empty for other types)
     */
    record Scanned(int index, String id, String aggregateType, String aggregateId, int version, boolean delete,
            List<Change.ItemRef> refs, long bytes) {

        Scanned withBytes(long n) {
            return new Scanned(index, id, aggregateType, aggregateId, version, delete, refs, n);
        }
    }
}

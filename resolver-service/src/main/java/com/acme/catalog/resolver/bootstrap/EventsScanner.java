package com.acme.catalog.resolver.bootstrap;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

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

    /** The types {@link SnapshotEvent#from} imports (all but {@code DecisionRecorded}). */
    private static final Set<EventType> IMPORTED = Collections.unmodifiableSet(EnumSet.of(EventType.ItemUpserted,
            EventType.ItemDeleted, EventType.MappingUpserted, EventType.PolicyUpserted, EventType.ReleasePublished));

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
        EnumSet<Member> seen = EnumSet.noneOf(Member.class);
        String id = null;
        String spec = null;
        String type = null;
        String subject = null;
        String aggregateType = null;
        int version = 0;
        Data data = null;
        boolean doubt = false;
        JsonToken t;
        while ((t = parser.nextToken()) == JsonToken.PROPERTY_NAME) {
            Member member = Member.named(parser.currentName());
            JsonToken v = parser.nextToken();
            if (member == null) {
                doubt |= JsonLimits.skipChecked(parser) != null;
                continue;
            }
            doubt |= !seen.add(member);
            switch (member) {
                case ID -> {
                    id = string(v);
                    doubt |= JsonLimits.textProblem(id) != null;
                }
                case SPEC_VERSION -> spec = string(v);
                case TYPE -> type = string(v);
                case SUBJECT -> subject = string(v);
                case AGGREGATE_TYPE -> aggregateType = string(v);
                case AGGREGATE_VERSION -> version = intValue(v);
                case DATA -> {
                    EventType known = type == null ? null : EventType.parse(type);
                    if (v == JsonToken.START_OBJECT && known != null) {
                        data = scanData(known);
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
                || aggregateType == null || version < 1) {
            return null;
        }
        EventType eventType = EventType.parse(type);
        if (eventType == null || !IMPORTED.contains(eventType)
                || !eventType.aggregateType().equals(aggregateType) || !AggregateIds.isId(subject)) {
            return null;
        }
        return new Scanned(index, id, aggregateType, subject, version, eventType == EventType.ItemDeleted,
                data.refs, 0);
    }

    /**
     * The members of {@code data} that {@link SnapshotEvent#from} reads for this type, each judged as it is read;
     * the rest is skipped.
     */
    private Data scanData(EventType type) {
        Data d = new Data();
        EnumSet<DataMember> seen = EnumSet.noneOf(DataMember.class);
        JsonToken t;
        while ((t = parser.nextToken()) == JsonToken.PROPERTY_NAME) {
            DataMember member = DataMember.of(type, parser.currentName());
            JsonToken v = parser.nextToken();
            if (member == null) {
                d.doubt |= JsonLimits.skipChecked(parser) != null;
                continue;
            }
            d.doubt |= !seen.add(member);
            boolean plain = switch (member) {
                case ATTRIBUTES, RULES -> {
                    boolean object = v == JsonToken.START_OBJECT;
                    yield JsonLimits.skipChecked(parser) == null && object;
                }
                case EXPECTED_REVISION -> {
                    // an expectedRevision has rules of its own: let the exact path judge
                    parser.skipChildren();
                    yield false;
                }
                case SOURCE, TARGET -> textMember(string(v));
                case VISIBILITY -> {
                    String visibility = string(v);
                    yield "PRIVATE".equals(visibility) || "PUBLIC".equals(visibility);
                }
                case ITEMS -> {
                    if (v == JsonToken.START_ARRAY) {
                        yield scanItems(d);
                    }
                    parser.skipChildren();
                    yield false;
                }
            };
            d.doubt |= !plain;
        }
        if (t != JsonToken.END_OBJECT) {
            throw new IllegalStateException("unexpected " + t + " in an event's data");
        }
        d.doubt |= !IMPORTED.contains(type) || !seen.containsAll(DataMember.requiredOf(type));
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
            EnumSet<RefMember> seen = EnumSet.noneOf(RefMember.class);
            String itemId = null;
            int revision = 0;
            while (parser.nextToken() == JsonToken.PROPERTY_NAME) {
                RefMember member = RefMember.named(parser.currentName());
                JsonToken v = parser.nextToken();
                if (member == null) {
                    ok &= JsonLimits.skipChecked(parser) == null;
                    continue;
                }
                ok &= seen.add(member);
                switch (member) {
                    case ITEM_ID -> itemId = string(v);
                    case REVISION -> revision = intValue(v);
                }
            }
            if (revision < 1 || !AggregateIds.isId(itemId)) {
                ok = false;
            } else {
                refs.add(new Change.ItemRef(itemId, revision));
            }
        }
        ok &= refs.size() <= JsonLimits.MAX_RELEASE_ITEMS;
        d.refs = List.copyOf(refs);
        return ok;
    }

    /** @return the member's value when it is a string; any other value is consumed and read as null */
    private String string(JsonToken value) {
        if (value == JsonToken.VALUE_STRING) {
            return parser.getString();
        }
        parser.skipChildren();
        return null;
    }

    /** @return the member's value when it is an integer in int range; any other value is consumed and read as 0 */
    private int intValue(JsonToken value) {
        if (value == JsonToken.VALUE_NUMBER_INT && parser.getNumberType() == JsonParser.NumberType.INT) {
            return parser.getIntValue();
        }
        parser.skipChildren();
        return 0;
    }

    /** {@code ChangeParser}'s rule for a plain text member: 1 to the shared limit of characters, clean text. */
    private static boolean textMember(String s) {
        return s != null && !s.isEmpty() && s.length() <= JsonLimits.MAX_TEXT_MEMBER_CHARS
                && JsonLimits.textProblem(s) == null;
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

    /** The envelope members {@link SnapshotEvent#from} reads, by their JSON names. */
    private enum Member {
        ID("id"),
        SPEC_VERSION("specversion"),
        TYPE("type"),
        SUBJECT("subject"),
        AGGREGATE_TYPE("aggregatetype"),
        AGGREGATE_VERSION("aggregateversion"),
        DATA("data");

        private static final Member[] ALL = values();

        private final String json;

        Member(String json) {
            this.json = json;
        }

        /** @return the member of that JSON name, null for any other member */
        static Member named(String name) {
            for (Member m : ALL) {
                if (m.json.equals(name)) {
                    return m;
                }
            }
            return null;
        }
    }

    /**
     * The members of an event's {@code data} that {@link SnapshotEvent#from} reads, each of the one event type that
     * has it, and whether an event of that type needs it.
     */
    private enum DataMember {
        ATTRIBUTES(EventType.ItemUpserted, "attributes", true),
        EXPECTED_REVISION(EventType.ItemUpserted, "expectedRevision", false),
        SOURCE(EventType.MappingUpserted, "source", true),
        TARGET(EventType.MappingUpserted, "target", true),
        RULES(EventType.PolicyUpserted, "rules", true),
        VISIBILITY(EventType.ReleasePublished, "visibility", true),
        ITEMS(EventType.ReleasePublished, "items", true);

        private static final DataMember[] ALL = values();
        private static final Map<EventType, Set<DataMember>> REQUIRED = required();

        private final EventType type;
        private final String json;
        private final boolean required;

        DataMember(EventType type, String json, boolean required) {
            this.type = type;
            this.json = json;
            this.required = required;
        }

        /** @return the member of that JSON name in the data of that type, null for any other member */
        static DataMember of(EventType type, String name) {
            for (DataMember m : ALL) {
                if (m.type == type && m.json.equals(name)) {
                    return m;
                }
            }
            return null;
        }

        /** @return the members an event of {@code type} must have */
        static Set<DataMember> requiredOf(EventType type) {
            return REQUIRED.get(type);
        }

        private static Map<EventType, Set<DataMember>> required() {
            Map<EventType, Set<DataMember>> out = new EnumMap<>(EventType.class);
            for (EventType t : EventType.values()) {
                out.put(t, EnumSet.noneOf(DataMember.class));
            }
            for (DataMember m : values()) {
                if (m.required) {
                    out.get(m.type).add(m);
                }
            }
            out.replaceAll((t, members) -> Collections.unmodifiableSet(members));
            return out;
        }
    }

    /** The members of one of a release's item references. */
    private enum RefMember {
        ITEM_ID("itemId"),
        REVISION("revision");

        private static final RefMember[] ALL = values();

        private final String json;

        RefMember(String json) {
            this.json = json;
        }

        static RefMember named(String name) {
            for (RefMember m : ALL) {
                if (m.json.equals(name)) {
                    return m;
                }
            }
            return null;
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

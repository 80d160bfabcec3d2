package com.acme.catalog.resolver.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import com.acme.catalog.contracts.ProblemCode;
import com.acme.catalog.testsupport.SnapshotEventsGenerator;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.json.JsonMapper;

/** The first pass: every rule that rejects a file names the first bad event's index and id. */
class EventsValidatorTest {

    private static final ObjectMapper JSON = JsonMapper.builder().build();

    @TempDir
    Path dir;

    static String item(String id, String subject, int version) {
        return "{\"specversion\":\"1.0\",\"id\":\"" + id + "\",\"type\":\"ItemUpserted\",\"subject\":\"" + subject
                + "\",\"aggregatetype\":\"item\",\"aggregateversion\":" + version
                + ",\"data\":{\"attributes\":{\"name\":\"n\"}}}";
    }

    static String event(String id, String type, String aggregateType, String subject, int version, String data) {
        return "{\"specversion\":\"1.0\",\"id\":\"" + id + "\",\"type\":\"" + type + "\",\"subject\":\"" + subject
                + "\",\"aggregatetype\":\"" + aggregateType + "\",\"aggregateversion\":" + version + ",\"data\":"
                + data + "}";
    }

    /** (name, file content, code, index, eventId) */
    static List<Object[]> badFiles() {
        return List.of(
                new Object[] {"not an array", "{\"a\":1}", ProblemCode.INVALID_BODY, null, null},
                new Object[] {"empty file", "", ProblemCode.INVALID_BODY, null, null},
                new Object[] {"empty array", "[]", ProblemCode.INVALID_BODY, null, null},
                new Object[] {"element not an object", "[" + item("e0", "a", 1) + ",42]", ProblemCode.INVALID_BODY,
                        1, null},
                new Object[] {"truncated JSON", "[" + item("e0", "a", 1) + ",{\"id\":\"e1\",", ProblemCode.INVALID_BODY,
                        1, null},
                new Object[] {"missing comma", "[" + item("e0", "a", 1) + item("e1", "b", 1) + "]",
                        ProblemCode.INVALID_BODY, 1, null},
                new Object[] {"trailing content", "[" + item("e0", "a", 1) + "] []", ProblemCode.INVALID_BODY, null,
                        null},
                new Object[] {"missing id", "[" + item("e0", "a", 1) + ",{\"specversion\":\"1.0\"}]",
                        ProblemCode.INVALID_BODY, 1, null},
                new Object[] {"wrong specversion", "[" + item("e0", "a", 1).replace("\"1.0\"", "\"0.3\"") + "]",
                        ProblemCode.INVALID_BODY, 0, "e0"},
                new Object[] {"version not an integer", "[" + item("e0", "a", 1).replace(":1,", ":\"1\",") + "]",
                        ProblemCode.INVALID_BODY, 0, "e0"},
                new Object[] {"data not an object", "[" + event("e0", "ItemDeleted", "item", "a", 1, "[]") + "]",
                        ProblemCode.INVALID_BODY, 0, "e0"},
                new Object[] {"duplicate id", "[" + item("e0", "a", 1) + "," + item("e1", "b", 1) + ","
                        + item("e0", "c", 1) + "]", ProblemCode.INVALID_EVENT, 2, "e0"},
                new Object[] {"unknown type", "[" + event("e0", "ItemMoved", "item", "a", 1, "{}") + "]",
                        ProblemCode.INVALID_EVENT, 0, "e0"},
                new Object[] {"decisions are not importable",
                        "[" + event("e0", "DecisionRecorded", "decision", "a", 1, "{}") + "]",
                        ProblemCode.INVALID_EVENT, 0, "e0"},
                new Object[] {"aggregatetype does not match the type",
                        "[" + event("e0", "MappingUpserted", "item", "a", 1, "{\"source\":\"s\",\"target\":\"t\"}")
                                + "]", ProblemCode.INVALID_EVENT, 0, "e0"},
                new Object[] {"empty subject", "[" + item("e0", "", 1) + "]", ProblemCode.INVALID_EVENT, 0, "e0"},
                new Object[] {"subject not an aggregate id", "[" + item("e0", "a b", 1) + "]",
                        ProblemCode.INVALID_EVENT, 0, "e0"},
                new Object[] {"first version is not 1", "[" + item("e0", "a", 2) + "]", ProblemCode.INVALID_EVENT, 0,
                        "e0"},
                new Object[] {"version gap", "[" + item("e0", "a", 1) + "," + item("e1", "b", 1) + ","
                        + item("e2", "a", 3) + "]", ProblemCode.INVALID_EVENT, 2, "e2"},
                new Object[] {"payload shape", "[" + event("e0", "ItemUpserted", "item", "a", 1, "{\"name\":\"x\"}")
                        + "]", ProblemCode.INVALID_EVENT, 0, "e0"},
                new Object[] {"delete of an unknown item", "[" + item("e0", "a", 1) + ","
                        + event("e1", "ItemDeleted", "item", "b", 1, "{}") + "]", ProblemCode.INVALID_EVENT, 1, "e1"},
                new Object[] {"second delete", "[" + item("e0", "a", 1) + ","
                        + event("e1", "ItemDeleted", "item", "a", 2, "{}") + ","
                        + event("e2", "ItemDeleted", "item", "a", 3, "{}") + "]", ProblemCode.INVALID_EVENT, 2, "e2"},
                new Object[] {"release of a revision not yet in the file", "[" + item("e0", "a", 1) + ","
                        + event("e1", "ReleasePublished", "release", "r", 1,
                                "{\"visibility\":\"PUBLIC\",\"items\":[{\"itemId\":\"a\",\"revision\":2}]}")
                        + "," + item("e2", "a", 2) + "]", ProblemCode.INVALID_EVENT, 1, "e1"},
                new Object[] {"release of a deletion", "[" + item("e0", "a", 1) + ","
                        + event("e1", "ItemDeleted", "item", "a", 2, "{}") + ","
                        + event("e2", "ReleasePublished", "release", "r", 1,
                                "{\"visibility\":\"PUBLIC\",\"items\":[{\"itemId\":\"a\",\"revision\":2}]}")
                        + "]", ProblemCode.INVALID_EVENT, 2, "e2"});
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("badFiles")
    void rejectsTheFirstBadEvent(String name, String content, ProblemCode code, Integer index, String eventId)
            throws IOException {
        Path file = dir.resolve("events.json");
        Files.writeString(file, content, StandardCharsets.UTF_8);
        assertThatThrownBy(() -> new EventsValidator(JSON).validate(file, ImportOptions.DEFAULT_MAX_EVENT_BYTES))
                .isInstanceOfSatisfying(RejectedEventException.class, e -> {
                    assertThat(e.code()).as(e.getMessage()).isEqualTo(code);
                    assertThat(e.index()).as(e.getMessage()).isEqualTo(index);
                    assertThat(e.eventId()).as(e.getMessage()).isEqualTo(eventId);
                });
    }

    @Test
    void rejectsAnEventOverTheByteLimitByItsInputSize() throws IOException {
        String small = item("e0", "a", 1);
        String large = item("e1", "b", 1).replace("\"n\"", "\"" + "x".repeat(300) + "\"");
        Path file = dir.resolve("events.json");
        Files.writeString(file, "[\n  " + small + ",\n  " + large + "\n]");
        assertThat(new EventsValidator(JSON).validate(file, 1000).events()).isEqualTo(2);
        assertThatThrownBy(() -> new EventsValidator(JSON).validate(file, large.length() - 1))
                .isInstanceOfSatisfying(RejectedEventException.class, e -> {
                    assertThat(e.code()).isEqualTo(ProblemCode.INVALID_EVENT);
                    assertThat(e.index()).isEqualTo(1);
                    assertThat(e.eventId()).isEqualTo("e1");
                    assertThat(e.getMessage()).contains(large.length() + " bytes");
                });
        assertThat(new EventsValidator(JSON).validate(file, large.length()).bytes())
                .isEqualTo(small.length() + large.length());
    }

    @Test
    void acceptsGeneratedFilesAndIgnoresUnknownMembers() {
        Path file = dir.resolve("events.json");
        SnapshotEventsGenerator.write(file, 3000, 7);
        EventsValidator.Validated v = new EventsValidator(JSON).validate(file, ImportOptions.DEFAULT_MAX_EVENT_BYTES);
        assertThat(v.events()).isEqualTo(3000);
        assertThat(v.sha256()).hasSize(64);
    }
}

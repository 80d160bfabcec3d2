package com.acme.catalog.floor;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import com.acme.catalog.platform.web.Access;
import com.acme.catalog.platform.web.Role;

import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.transaction.support.TransactionTemplate;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.PutMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;
import tools.jackson.databind.JsonNode;

/**
 * App a's writes: each request inserts its rows and a {@code pg_notify} in one transaction (synchronous commit)
 * and answers the last row's position, in the shape of the resolver's answers ({@code position} for one item,
 * {@code lastPosition} for a transaction) so one load generator drives both.
 */
@RestController
@ConditionalOnProperty(name = "floor.role", havingValue = "a")
class WriteController {

    private final JdbcClient jdbc;
    private final TransactionTemplate tx;

    WriteController(JdbcClient jdbc, TransactionTemplate tx) {
        this.jdbc = jdbc;
        this.tx = tx;
    }

    @PutMapping("/items/{stream}/{itemId}")
    Map<String, Object> put(@PathVariable String stream, @PathVariable String itemId, @RequestBody JsonNode body) {
        Access.require(Role.WRITER);
        String attributes = body.path("attributes").toString();
        long position = tx.execute(s -> {
            long p = jdbc.sql("INSERT INTO floor_event (stream, item_id, attributes) VALUES (?, ?, ?::jsonb)"
                    + " RETURNING position").params(stream, itemId, attributes).query(Long.class).single();
            notifyListener();
            return p;
        });
        return Map.of("position", position, "changes", 1);
    }

    @PostMapping("/streams/{stream}/transactions")
    Map<String, Object> transaction(@PathVariable String stream, @RequestBody JsonNode body) {
        Access.require(Role.WRITER);
        List<String> ids = new ArrayList<>();
        List<String> attributes = new ArrayList<>();
        for (JsonNode change : body.path("changes")) {
            ids.add(change.path("itemId").asString());
            attributes.add(change.path("attributes").toString());
        }
        long last = tx.execute(s -> {
            long p = jdbc.sql("""
                    INSERT INTO floor_event (stream, item_id, attributes)
                    SELECT ?, t.item_id, t.attributes::jsonb FROM unnest(?::text[], ?::text[]) AS t(item_id, attributes)
                    RETURNING position""")
                    .params(stream, ids.toArray(String[]::new), attributes.toArray(String[]::new))
                    .query(Long.class).list().stream().mapToLong(Long::longValue).max().orElse(0L);
            notifyListener();
            return p;
        });
        return Map.of("lastPosition", last, "changes", ids.size());
    }

    private void notifyListener() {
        jdbc.sql("SELECT pg_notify('floor_events', '')").query(Object.class).single();
    }
}

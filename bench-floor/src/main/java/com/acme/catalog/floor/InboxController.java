package com.acme.catalog.floor;

import java.util.Map;

import com.acme.catalog.platform.web.Access;
import com.acme.catalog.platform.web.Role;

import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;
import tools.jackson.databind.JsonNode;

/** App b: one batch from app a's listener, inserted in one transaction (synchronous commit), then answered. */
@RestController
@ConditionalOnProperty(name = "floor.role", havingValue = "b")
class InboxController {

    private final JdbcClient jdbc;

    InboxController(JdbcClient jdbc) {
        this.jdbc = jdbc;
    }

    @PostMapping("/inbox")
    Map<String, Object> deliver(@RequestBody JsonNode batch) {
        Access.require(Role.RELAY);
        int n = batch.size();
        String[] streams = new String[n];
        Long[] positions = new Long[n];
        String[] ids = new String[n];
        String[] attributes = new String[n];
        for (int i = 0; i < n; i++) {
            JsonNode e = batch.get(i);
            streams[i] = e.path("stream").asString();
            positions[i] = e.path("position").asLong();
            ids[i] = e.path("itemId").asString();
            attributes[i] = e.path("attributes").toString();
        }
        // one statement, so one implicit transaction: autocommit with a synchronous commit
        int applied = jdbc.sql("""
                INSERT INTO floor_applied (stream, position, item_id, attributes)
                SELECT t.stream, t.position, t.item_id, t.attributes::jsonb
                  FROM unnest(?::text[], ?::bigint[], ?::text[], ?::text[]) AS t(stream, position, item_id, attributes)
                ON CONFLICT DO NOTHING""").params(streams, positions, ids, attributes).update();
        return Map.of("applied", applied);
    }
}

package com.acme.catalog.floor;

import javax.sql.DataSource;

import com.acme.catalog.platform.web.SharedWebConfiguration;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.core.io.ClassPathResource;
import org.springframework.jdbc.datasource.init.ResourceDatabasePopulator;

/**
 * The floor of the live pipeline, one jar in two roles. App {@code a} answers {@code PUT /items/…} and
 * {@code POST …/transactions} by inserting rows and a {@code pg_notify} in one transaction; its listener thread
 * posts the new rows in batches to app {@code b}, which inserts each batch in one transaction. Two HTTP hops, two
 * synchronous commits, one NOTIFY: no cursor lock, chain, inbox dedupe or progress. Same web stack, bearer-token
 * check ({@link SharedWebConfiguration}), metrics and HTTP client as the services, so what the services spend above
 * it is what their guarantees cost.
 */
@SpringBootApplication
@Import(SharedWebConfiguration.class)
public class FloorApplication {

    public static void main(String[] args) {
        SpringApplication.run(FloorApplication.class, args);
    }

    /** Creates the role's one table at start ({@code floor-schema.sql}; idempotent). */
    @Bean
    SchemaCreated schema(DataSource dataSource) {
        new ResourceDatabasePopulator(new ClassPathResource("floor-schema.sql")).execute(dataSource);
        return new SchemaCreated();
    }

    /** Marker: the schema exists. */
    record SchemaCreated() {
    }

    @Bean
    SharedWebConfiguration.PublicPaths publicPaths() {
        return new SharedWebConfiguration.PublicPaths(java.util.List.of());
    }

    @Bean
    FloorProperties floorProperties(@Value("${floor.role}") String role, @Value("${floor.inbox-url}") String inboxUrl,
            @Value("${floor.relay-token}") String relayToken, @Value("${floor.batch-events}") int batchEvents,
            @Value("${floor.batch-bytes}") int batchBytes) {
        return new FloorProperties(role, inboxUrl, relayToken, batchEvents, batchBytes);
    }

    /** {@code floor.*}: the role and, for app a, the inbox it posts to with the relay's token and batch bounds. */
    record FloorProperties(String role, String inboxUrl, String relayToken, int batchEvents, int batchBytes) {
        FloorProperties {
            if (!role.equals("a") && !role.equals("b")) {
                throw new IllegalArgumentException("FLOOR_ROLE is a or b, got " + role);
            }
        }
    }
}

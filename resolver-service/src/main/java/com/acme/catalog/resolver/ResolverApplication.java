package com.acme.catalog.resolver;

import java.time.Clock;

import com.acme.catalog.platform.db.DatabaseCreator;
import com.acme.catalog.platform.web.SharedWebConfiguration;
import com.acme.catalog.resolver.bootstrap.BootstrapCommand;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.scheduling.annotation.EnableScheduling;

/** The resolver: owns accepted state per stream, its outbox, retention, exports and epochs. */
@SpringBootApplication
@EnableScheduling
@Import(SharedWebConfiguration.class)
public class ResolverApplication {

    public static void main(String[] args) {
        if (BootstrapCommand.requested(args)) {
            System.exit(BootstrapCommand.run(ResolverApplication.class, args));
        }
        SpringApplication.run(ResolverApplication.class, args);
    }

    @Bean
    static DatabaseCreator databaseCreator() {
        return new DatabaseCreator();
    }

    /**
     * This JVM's clock, for non-authoritative times only (logs, "observed at" fields); anything that decides
     * expiry or ordering uses the database clock in SQL. Tests replace it to prove that.
     */
    @Bean
    Clock clock() {
        return Clock.systemUTC();
    }
}

package com.acme.catalog.resolver;

import java.time.Clock;

import com.acme.catalog.platform.db.DatabaseCreator;
import com.acme.catalog.platform.web.SharedWebConfiguration;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;

/** The resolver: owns accepted state per stream, its outbox, retention, exports and epochs. */
@SpringBootApplication
@Import(SharedWebConfiguration.class)
public class ResolverApplication {

    /** The jar's entry point: a command-line mode ({@code --help} lists them) or, without a mode flag, the service. */
    public static void main(String[] args) {
        Integer exit = JarModes.run(args, System.out, System.err);
        if (exit != null) {
            System.exit(exit);
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

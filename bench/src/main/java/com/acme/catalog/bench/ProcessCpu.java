package com.acme.catalog.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;

import com.acme.catalog.testsupport.TestDatabase;

/** CPU time used so far by processes of this machine, from /proc (Linux); -1 when it cannot be read. */
final class ProcessCpu {

    private ProcessCpu() {
    }

    /** User + system CPU milliseconds of the process {@code pid}. */
    static long millis(long pid) {
        try {
            String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
            String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            return (Long.parseLong(f[11]) + Long.parseLong(f[12])) * 10; // utime, stime in 1/100 s
        } catch (Exception e) {
            return -1;
        }
    }

    /**
     * CPU milliseconds of every {@code postgres} process alive now: backends of every database, parallel workers,
     * autovacuum, WAL writer, checkpointer. A process that exits between two readings takes its CPU with it, so
     * the difference is a lower bound of what the server used in between.
     */
    static long postgresMillis() {
        long total = 0;
        try (var procs = Files.list(Path.of("/proc"))) {
            for (Path dir : (Iterable<Path>) procs::iterator) {
                String name = dir.getFileName().toString();
                if (!name.chars().allMatch(Character::isDigit)) {
                    continue;
                }
                try {
                    if (Files.readString(dir.resolve("comm")).trim().equals("postgres")) {
                        total += Math.max(0, millis(Long.parseLong(name)));
                    }
                } catch (Exception gone) {
                    // exited while we looked
                }
            }
        } catch (Exception e) {
            return -1;
        }
        return total;
    }

    /** Busy and total CPU milliseconds of the whole machine, all cores, from the first line of /proc/stat. */
    static long[] machineMillis() {
        try {
            String[] f = Files.readAllLines(Path.of("/proc/stat")).get(0).trim().split("\\s+");
            long total = 0;
            for (int i = 1; i < Math.min(f.length, 9); i++) { // user nice system idle iowait irq softirq steal
                total += Long.parseLong(f[i]);
            }
            long idle = Long.parseLong(f[4]) + Long.parseLong(f[5]);
            return new long[] {(total - idle) * 10, total * 10};
        } catch (Exception e) {
            return new long[] {-1, -1};
        }
    }

    /** CPU milliseconds of every PostgreSQL backend connected to {@code db} now, the asking one excluded. */
    static long databaseBackendsMillis(TestDatabase db) {
        long total = 0;
        try (Connection c = db.connect(); Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT pid FROM pg_stat_activity"
                     + " WHERE datname = current_database() AND pid <> pg_backend_pid()")) {
            while (rs.next()) {
                total += Math.max(0, millis(rs.getLong(1)));
            }
        } catch (Exception e) {
            return -1;
        }
        return total;
    }

    /** The 1, 5 and 15 minute load averages ("unknown" where /proc is absent): print it with every run. */
    static String loadAverage() {
        try {
            String[] f = java.nio.file.Files.readString(java.nio.file.Path.of("/proc/loadavg")).trim().split("\\s+");
            return f[0] + " " + f[1] + " " + f[2];
        } catch (Exception e) {
            return "unknown";
        }
    }
}

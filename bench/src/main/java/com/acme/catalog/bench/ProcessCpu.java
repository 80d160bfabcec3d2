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
}

package com.acme.catalog.platform.checksum;

import java.util.LinkedHashMap;
import java.util.Map;

import com.acme.catalog.contracts.checksum.AcceptedStateChecksum.Accumulator;
import com.acme.catalog.contracts.checksum.AcceptedStateChecksum.TableChecksum;
import com.acme.catalog.contracts.checksum.ChecksumProfile.ProfileTable;

import org.springframework.jdbc.core.JdbcTemplate;
import com.acme.catalog.contracts.checksum.AcceptedStateChecksum;
import com.acme.catalog.contracts.checksum.ChecksumAnswer;
import com.acme.catalog.contracts.checksum.ChecksumProfile;

/**
 * Runs a profile over one copy of the data: each service supplies, per table of the profile, a query whose
 * columns are the table's profile columns in order and whose rows come in key order ({@code COLLATE "C"}). Rows
 * stream through the template's fetch size inside the caller's transaction, so call it in the snapshot that read
 * the position the answer claims.
 */
public final class ChecksumQuery {

    private ChecksumQuery() {
    }

    /**
     * @param sqlByTable one query per table of {@code profile}, by the table's name
     * @return every table of the profile with its row count and SHA-256, in the profile's table order
     */
    public static Map<String, TableChecksum> compute(JdbcTemplate streaming, ChecksumProfile profile,
            Map<String, String> sqlByTable, Object... params) {
        Map<String, TableChecksum> out = new LinkedHashMap<>();
        for (ProfileTable table : profile.tables()) {
            Accumulator acc = new Accumulator(table.name(), table.columns());
            int columns = table.columns().size();
            String sql = sqlByTable.get(table.name());
            if (sql == null) {
                throw new IllegalArgumentException("no query for table " + table.name() + " of " + profile);
            }
            streaming.query(sql, rs -> {
                Object[] fields = new Object[columns];
                for (int i = 0; i < columns; i++) {
                    fields[i] = rs.getObject(i + 1);
                }
                acc.row(fields);
            }, params);
            out.put(table.name(), acc.finish());
        }
        return out;
    }

    /** @return the profile's tables, each empty (a stream nothing was written to) */
    public static Map<String, TableChecksum> empty(ChecksumProfile profile) {
        Map<String, TableChecksum> out = new LinkedHashMap<>();
        for (ProfileTable table : profile.tables()) {
            out.put(table.name(), new Accumulator(table.name(), table.columns()).finish());
        }
        return out;
    }

    /**
     * The contract's answer as a map: {@code {"epoch","position","profile","tables":{name:{"rows","sha256"}}}}.
     * Both services answer the typed {@link ChecksumAnswer}; this form stays for readers of untyped maps.
     */
    public static Map<String, Object> answer(long epoch, long position, ChecksumProfile profile,
            Map<String, TableChecksum> tables) {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("epoch", epoch);
        out.put("position", position);
        out.put("profile", profile.profileName());
        Map<String, Object> t = new LinkedHashMap<>();
        tables.forEach((table, sum) -> t.put(table, Map.of("rows", sum.rows(), "sha256", sum.sha256())));
        out.put("tables", t);
        return out;
    }
}

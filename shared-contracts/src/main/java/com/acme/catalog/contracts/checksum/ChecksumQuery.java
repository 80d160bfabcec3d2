package com.acme.catalog.contracts.checksum;

import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.Map;

import com.acme.catalog.contracts.checksum.AcceptedStateChecksum.Accumulator;
import com.acme.catalog.contracts.checksum.AcceptedStateChecksum.Table;
import com.acme.catalog.contracts.checksum.AcceptedStateChecksum.TableChecksum;

import org.springframework.jdbc.core.JdbcTemplate;

/**
 * Runs the profile over one copy of accepted state: each service supplies, per table, a query whose columns are
 * the table's profile columns in order and whose rows come in key order ({@code COLLATE "C"}). Rows stream
 * through the template's fetch size inside the caller's transaction, so call it in the snapshot that read the
 * position the answer claims.
 */
public final class ChecksumQuery {

    private ChecksumQuery() {
    }

    /** @return every table of the profile with its row count and SHA-256, in the profile's table order */
    public static Map<Table, TableChecksum> compute(JdbcTemplate streaming, Map<Table, String> sqlByTable,
            Object... params) {
        Map<Table, TableChecksum> out = new EnumMap<>(Table.class);
        for (Table table : Table.values()) {
            Accumulator acc = new Accumulator(table);
            int columns = table.columns().size();
            streaming.query(sqlByTable.get(table), rs -> {
                Object[] fields = new Object[columns];
                for (int i = 0; i < columns; i++) {
                    fields[i] = rs.getObject(i + 1);
                }
                acc.row(fields);
            }, params);
            out.put(table, acc.finish());
        }
        return out;
    }

    /** The contract's answer: {@code {"epoch","position","profile","tables":{name:{"rows","sha256"}}}}. */
    public static Map<String, Object> answer(long epoch, long position, Map<Table, TableChecksum> tables) {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("epoch", epoch);
        out.put("position", position);
        out.put("profile", AcceptedStateChecksum.PROFILE);
        Map<String, Object> t = new LinkedHashMap<>();
        tables.forEach((table, sum) -> t.put(table.name(), Map.of("rows", sum.rows(), "sha256", sum.sha256())));
        out.put("tables", t);
        return out;
    }
}

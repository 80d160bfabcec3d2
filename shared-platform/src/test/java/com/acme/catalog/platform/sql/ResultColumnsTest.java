package com.acme.catalog.platform.sql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.reflect.Proxy;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

class ResultColumnsTest {

    private static final ResultColumns COLUMNS = ResultColumns.of("id", "revision", "deleted");

    /** A result of columns (kind, revision, id, deleted) counting its column look-ups by name. */
    private static ResultSet result(List<Object[]> rows, AtomicInteger lookups) {
        List<String> names = List.of("kind", "revision", "id", "deleted");
        int[] row = {-1};
        return (ResultSet) Proxy.newProxyInstance(ResultColumnsTest.class.getClassLoader(),
                new Class<?>[] {ResultSet.class}, (proxy, method, args) -> switch (method.getName()) {
                    case "findColumn" -> {
                        lookups.incrementAndGet();
                        int i = names.indexOf((String) args[0]);
                        if (i < 0) {
                            throw new SQLException("no column " + args[0]);
                        }
                        yield i + 1;
                    }
                    case "next" -> ++row[0] < rows.size();
                    case "getString" -> (String) rows.get(row[0])[(Integer) args[0] - 1];
                    case "getInt" -> (Integer) rows.get(row[0])[(Integer) args[0] - 1];
                    case "getBoolean" -> (Boolean) rows.get(row[0])[(Integer) args[0] - 1];
                    case "getObject" -> rows.get(row[0])[(Integer) args[0] - 1];
                    default -> throw new UnsupportedOperationException(method.getName());
                });
    }

    @Test
    void rowsAreReadByNameWithEachNameLookedUpOncePerResult() throws SQLException {
        AtomicInteger lookups = new AtomicInteger();
        ResultColumns.Rows rows = COLUMNS.in(result(List.of(new Object[] {"item", 3, "sku-1", false},
                new Object[] {"item", 4, "sku-2", true}), lookups));
        List<String> read = new ArrayList<>();
        while (rows.next()) {
            read.add(rows.getString("id") + "@" + rows.getInt("revision") + (rows.getBoolean("deleted") ? "-" : "")
                    + rows.getObject("id", String.class).length());
        }
        assertThat(read).containsExactly("sku-1@35", "sku-2@4-5");
        assertThat(lookups).hasValue(3);
    }

    @Test
    void aNameComputedAtRunTimeIsFoundToo() throws SQLException {
        ResultColumns.Rows rows = COLUMNS.in(result(List.<Object[]>of(new Object[] {"item", 3, "sku-1", false}),
                new AtomicInteger()));
        rows.next();
        assertThat(rows.getString(new StringBuilder("i").append('d').toString())).isEqualTo("sku-1");
    }

    @Test
    void aColumnTheResultLacksFailsWhenTheResultIsOpenedEvenWithoutRows() {
        assertThatThrownBy(() -> ResultColumns.of("id", "chain_digest").in(result(List.of(), new AtomicInteger())))
                .isInstanceOf(SQLException.class).hasMessageContaining("chain_digest");
    }

    @Test
    void aColumnNotDeclaredIsRefused() throws SQLException {
        ResultColumns.Rows rows = COLUMNS.in(result(List.<Object[]>of(new Object[] {"item", 3, "sku-1", false}),
                new AtomicInteger()));
        rows.next();
        assertThatThrownBy(() -> rows.getString("kind")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ResultColumns.of("id", "id")).isInstanceOf(IllegalArgumentException.class);
    }
}

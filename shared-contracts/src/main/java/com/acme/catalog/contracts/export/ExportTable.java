package com.acme.catalog.contracts.export;

import java.util.List;
import java.util.Optional;

import com.acme.catalog.contracts.checksum.AcceptedStateChecksum;
import com.acme.catalog.contracts.checksum.AcceptedStateChecksum.Column;
import com.acme.catalog.contracts.checksum.AcceptedStateChecksum.Kind;
import com.acme.catalog.contracts.checksum.AcceptedStateChecksum.Table;

/**
 * The tables an export writes, one object each: the four tables of current accepted state (the
 * {@value AcceptedStateChecksum#PROFILE} profile's, with its columns) and {@link #revisions}, the whole revision
 * history of the stream's aggregates at W (every revision a release may name, so the loader's public view and any
 * later release can read an item's attributes at an older revision). The history is not part of the
 * {@code accepted-state-v1} profile; its object is checked by size, SHA-256, row count and header like the others.
 */
public enum ExportTable {

    items(Table.items),
    mappings(Table.mappings),
    policies(Table.policies),
    releases(Table.releases),
    /**
     * One row per revision of every aggregate (the resolver's {@code accepted_revision}): {@code content} is the
     * payload of the event that made it; rows in ascending order of type, id ({@code COLLATE "C"}) and revision.
     */
    revisions(null, List.of(new Column("aggregate_type", Kind.TEXT), new Column("aggregate_id", Kind.TEXT),
            new Column("revision", Kind.INT), new Column("deleted", Kind.BOOL), new Column("content", Kind.JSON),
            new Column("epoch", Kind.INT), new Column("position", Kind.INT), new Column("event_id", Kind.TEXT)));

    private final Table profileTable;
    private final List<Column> columns;

    ExportTable(Table profileTable) {
        this(profileTable, profileTable.columns());
    }

    ExportTable(Table profileTable, List<Column> columns) {
        this.profileTable = profileTable;
        this.columns = columns;
    }

    /** @return the object's columns, in order */
    public List<Column> columns() {
        return columns;
    }

    /** @return the {@code accepted-state-v1} table this object holds; empty for {@link #revisions} */
    public Optional<Table> profileTable() {
        return Optional.ofNullable(profileTable);
    }

    /** @return the object holding a table of the {@code accepted-state-v1} profile */
    public static ExportTable of(Table table) {
        return valueOf(table.name());
    }
}

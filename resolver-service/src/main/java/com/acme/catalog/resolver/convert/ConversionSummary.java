package com.acme.catalog.resolver.convert;

import java.util.List;
import java.util.Map;

import com.acme.catalog.contracts.checksum.AcceptedStateChecksum.TableChecksum;
import com.fasterxml.jackson.annotation.JsonInclude;

/**
 * The machine-readable summary of one conversion, printed by {@code --convert-snapshot} as one JSON line and returned
 * by {@link SnapshotConverter}. It describes the output and where it came from; the output itself carries nothing of
 * the source's history (docs/bootstrap-import.md "Converting a snapshot").
 *
 * @param source                what was read
 * @param events                events written, one logical transaction each when imported
 * @param eventsByType          events written by type
 * @param aggregates            distinct aggregates by type ({@code item}, {@code mapping}, {@code policy},
 *                              {@code release})
 * @param droppedTombstones     per-table snapshots only: item deletions dropped because the item was not live there
 *                              (a tombstone without a version before it, or a second deletion)
 * @param ignoredFiles          per-table snapshots only: files of the directory that are not snapshot tables
 * @param outputSha256          SHA-256 of the output file (equal for equal input and seed)
 * @param seed                  the seed of the event ids; null when they came from the clock
 * @param expectedStateChecksum exports only: the {@code accepted-state-v1} tables the stream must answer after the
 *                              output is imported into an empty stream (the export's own, verified against its
 *                              objects); null for a per-table snapshot
 */
public record ConversionSummary(String status, Source source, long events, Map<String, Long> eventsByType,
        Map<String, Long> aggregates, long droppedTombstones, List<String> ignoredFiles, String output,
        long outputBytes, String outputSha256, @JsonInclude(JsonInclude.Include.ALWAYS) Long seed,
        @JsonInclude(JsonInclude.Include.ALWAYS) Map<String, TableChecksum> expectedStateChecksum,
        Timings timings) {

    public ConversionSummary {
        eventsByType = Map.copyOf(eventsByType);
        aggregates = Map.copyOf(aggregates);
        ignoredFiles = List.copyOf(ignoredFiles);
    }

    /**
     * What was converted: {@code kind} {@code export} (with the export's id, stream, epoch and cursor W) or
     * {@code tables} (with the directory and the rows read per table).
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record Source(String kind, String location, String exportId, String tenant, String catalog, Long epoch,
            Long cursor, Map<String, Long> rows) {
    }

    /** Milliseconds reading (and verifying) the input, writing the output, and in all. */
    public record Timings(double readMs, double writeMs, double totalMs) {
    }
}

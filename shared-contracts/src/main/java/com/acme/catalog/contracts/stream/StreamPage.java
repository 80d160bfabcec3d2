package com.acme.catalog.contracts.stream;

import java.util.List;

import com.fasterxml.jackson.annotation.JsonInclude;

/**
 * {@code GET /v1/streams?tenant=&after=&limit=}: streams ordered by (tenant, catalog); {@code next} (absent on the
 * last page) is the {@code after} of the next page.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record StreamPage(List<StreamSummary> streams, String next) {

    public StreamPage {
        streams = List.copyOf(streams);
    }
}

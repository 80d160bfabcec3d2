package com.acme.catalog.product.recovery;

import java.util.List;
import java.util.Random;

import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.product.support.CatalogHistory;
import com.acme.catalog.product.support.ChainWriter;

import org.springframework.http.HttpStatusCode;
import org.springframework.http.MediaType;
import org.springframework.web.client.RestClient;

/** What the sweep tests share: a seeded chained history of an {@code acme} stream and its delivery as the relay. */
final class SweepFixtures {

    private SweepFixtures() {
    }

    /** {@code n} events of {@code acme/<catalog>} in epoch 1, chained, from {@code seed}. */
    static List<ChainWriter.Event> history(String catalog, int n, long seed) {
        CatalogHistory h = new CatalogHistory(new Random(seed));
        return new ChainWriter(new StreamId("acme", catalog), 1, new Random(seed + 1)).appendAll(h.random(n));
    }

    /** Delivers {@code events} to the product's inbox as the relay (token {@code r}); @return the status */
    static int deliver(int port, List<ChainWriter.Event> events) {
        return RestClient.builder().baseUrl("http://localhost:" + port)
                .defaultStatusHandler(HttpStatusCode::isError, (req, res) -> { })
                .defaultHeader("Authorization", "Bearer r").build()
                .post().uri("/v1/inbox/events").contentType(MediaType.APPLICATION_JSON)
                .body("{\"events\":[" + String.join(",", events.stream().map(ChainWriter.Event::delivered).toList())
                        + "]}")
                .retrieve().toBodilessEntity().getStatusCode().value();
    }
}

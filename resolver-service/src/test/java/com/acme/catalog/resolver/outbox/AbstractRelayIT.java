package com.acme.catalog.resolver.outbox;

import static org.assertj.core.api.Assertions.assertThat;

import com.acme.catalog.resolver.support.ResolverIT;

/** Base of the relay tests that push to {@link FakeConsumer}s: writes and registrations through REST, as clients do. */
abstract class AbstractRelayIT extends ResolverIT {

    /** Writes item {@code id} of stream acme/{@code catalog}. */
    protected void write(String catalog, String id) {
        client("w").put().uri("/v1/streams/acme/" + catalog + "/items/" + id).header("Content-Type", "application/json")
                .body("{\"attributes\":{\"name\":\"" + id + "\"}}").retrieve().toBodilessEntity();
    }

    /** Registers push consumer {@code consumer} of acme/{@code catalog} at {@code url}, in epoch 1. */
    protected void register(String consumer, String catalog, String url) {
        var res = client("op").post().uri("/v1/retention/consumers").header("Content-Type", "application/json")
                .body("{\"consumerId\":\"" + consumer + "\",\"tenant\":\"acme\",\"catalog\":\"" + catalog
                        + "\",\"epoch\":1,\"deliveryUrl\":\"" + url + "\"}")
                .retrieve().toEntity(String.class);
        assertThat(res.getStatusCode().value()).as(res.getBody()).isEqualTo(201);
    }

    /** @return how many events {@code c} accepted, over all its deliveries */
    protected static long positions(FakeConsumer c) {
        return c.accepted().stream().mapToLong(d -> d.body().split("\"position\":", -1).length - 1).sum();
    }
}

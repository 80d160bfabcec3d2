package com.acme.catalog.system;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;

import org.junit.jupiter.api.Test;

/**
 * Both services from their jars, the product subscribed by pattern ({@code PRODUCT_STREAMS=subs/*}): a stream that
 * existed before the product started and streams created while it runs are all served, without a restart, an
 * operator's rebuild or an export, and converge with the resolver (both checksum profiles); a stream of another
 * tenant is not served.
 */
class SubscriptionSystemIT {

    private static final String T = "subs";

    @Test
    void everyStreamOfASubscribedTenantIsServedWithoutARestartOrARebuild() throws Exception {
        try (TwoServices sys = new TwoServices()) {
            sys.serve(T, "*");
            sys.startResolver();
            sys.seed(T, "existing", 3, "seed-1");
            sys.seed("other", "shoes", 2, "seed-0");
            sys.startProduct(sys.resolverUrl());

            for (String c : new String[] {"new-a", "new-b", "new-c"}) {
                sys.seed(T, c, 2, "seed-0");
            }
            for (String c : new String[] {"existing", "new-a", "new-b", "new-c"}) {
                String item = sys.productUrl() + "/v1/catalog/" + T + "/" + c + "/items/" + (c.equals("existing")
                        ? "seed-1" : "seed-0");
                await().atMost(Duration.ofSeconds(60)).until(() -> sys.call("GET", item, null, null).status() == 200);
                sys.assertConverged(T, c);
            }
            assertThat(TwoServices.scalar(sys.productDb, "SELECT count(*) FROM product.rebuild")).isZero();
            // the other tenant: never opened
            assertThat(sys.call("GET", sys.productUrl() + "/v1/catalog/other/shoes/items/seed-0", null, null)
                    .status()).isEqualTo(404);
            assertThat(TwoServices.scalar(sys.productDb,
                    "SELECT count(*) FROM product.generation WHERE tenant = 'other'")).isZero();
            // the resolver lists the tenant's streams in one page
            assertThat(sys.ok("GET", sys.resolverUrl() + "/v1/streams?tenant=" + T, "op", null).path("streams"))
                    .hasSize(4);
        }
    }
}

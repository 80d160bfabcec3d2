package com.acme.catalog.product.recovery;

import java.util.Optional;

import com.acme.catalog.contracts.ChainDigestAt;
import com.acme.catalog.product.projection.GenerationCursor;
import com.acme.catalog.product.resolver.ResolverClient;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Component;

/**
 * Whether a generation's verified chain is the resolver's (docs/rebuild.md "Divergence"): the digest the
 * generation verified at its chain position must be the one the resolver holds there. The live inbox and catch-up
 * verify that every event follows from the one before, but a well-chained event the resolver never wrote (a forged
 * delivery) passes that check; only the resolver's own digest tells. A diverged generation is marked (never
 * reported CURRENT again), counted in {@code product_chain_divergences_total} (per instance, at 0 from start; the
 * log and the completeness endpoint name the stream), and replaced by a rebuild.
 */
@Component
public class ChainDivergence {

    private static final Logger log = LoggerFactory.getLogger(ChainDivergence.class);
    private static final String SQL_MARK = """
            UPDATE generation SET diverged_at = now(), divergence = ?
             WHERE generation_id = ? AND diverged_at IS NULL
            """;
    private static final String SQL_RECORDED = """
            SELECT divergence FROM generation WHERE generation_id = ? AND diverged_at IS NOT NULL
            """;

    private final ResolverClient resolver;
    private final JdbcClient jdbc;
    private final Counter divergences;

    ChainDivergence(ResolverClient resolver, JdbcClient jdbc, MeterRegistry meters) {
        this.resolver = resolver;
        this.jdbc = jdbc;
        this.divergences = Counter.builder("product.chain.divergences")
                .description("serving generations found to hold a chain other than the resolver's (each is rebuilt)")
                .register(meters);
    }

    /** @return why the generation was marked diverged, if it was */
    public Optional<String> recorded(long generationId) {
        return jdbc.sql(SQL_RECORDED).params(generationId).query(String.class).optional();
    }

    /**
     * Asks the resolver for its digest at the generation's chain position.
     *
     * @return why the generation diverged; empty when its chain is the resolver's, or when the resolver can no
     *         longer tell (that position is pruned, or the epoch just changed: the caller's next steps see it)
     */
    Optional<String> check(GenerationCursor c) {
        ChainDigestAt source;
        try {
            source = resolver.chainDigest(c.stream(), c.epoch(), c.chainPosition());
        } catch (ResolverClient.AheadOfSourceException e) {
            return Optional.of("the product verified position " + c.chainPosition() + " of epoch " + c.epoch()
                    + ", which the resolver never committed");
        } catch (ResolverClient.GoneException e) {
            log.info("{}: the chain at {} cannot be checked against the resolver: {}", c.stream(), c.chainPosition(),
                    e.getMessage());
            return Optional.empty();
        }
        if (source.chainDigest().equals(c.chainDigest())) {
            return Optional.empty();
        }
        return Optional.of(describe(c.chainPosition(), c.chainDigest(), source.chainDigest()));
    }

    /** The reason recorded for a generation whose digest at {@code position} is not the resolver's. */
    static String describe(long position, String product, String resolverDigest) {
        return "the chain digest at position " + position + " is " + product + " here but " + resolverDigest
                + " at the resolver";
    }

    /**
     * Marks the generation diverged (once) and counts it.
     *
     * @return whether this call marked it
     */
    boolean mark(GenerationCursor c, String why) {
        boolean marked = jdbc.sql(SQL_MARK).params(why, c.generationId()).update() == 1;
        if (marked) {
            divergences.increment();
            log.error("{}: serving generation {} diverged from the resolver: {}; rebuilding", c.stream(),
                    c.generationId(), why);
        }
        return marked;
    }
}

package com.acme.catalog.resolver.retention;

import java.util.List;
import java.util.Map;

import com.acme.catalog.platform.web.SecurityTokens;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Component;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Once per database, before the first request is served: consumers, leases and exports owned by a positional name
 * of an older release ({@code token-3}: the third SECURITY_TOKENS entry) pass to the identity of the entry at that
 * position now, so an upgrade keeps what each token owned (the product re-registers its consumer at every start).
 * Recorded in {@code token_identity_adoption}; later starts, with whatever order, adopt nothing. Only in the web
 * service: the bootstrap-import command has no tokens (and takes no requests), so it adopts nothing.
 */
@Component
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
class TokenIdentityAdoption implements SmartInitializingSingleton {

    private static final Logger log = LoggerFactory.getLogger(TokenIdentityAdoption.class);
    private static final String SQL_LOCK = """
            LOCK TABLE token_identity_adoption IN EXCLUSIVE MODE
            """;
    private static final String SQL_ADOPTED_BEFORE = """
            SELECT count(*) FROM token_identity_adoption
            """;
    /** Every owner column, each statement moving one positional name to its identity: parameters identity, name. */
    private static final List<String> SQL_ADOPT = List.of("""
            UPDATE retention_consumer SET registered_by = ? WHERE registered_by = ?
            """, """
            UPDATE retention_lease SET created_by = ? WHERE created_by = ?
            """, """
            UPDATE snapshot_export SET requested_by = ? WHERE requested_by = ?
            """);
    private static final String SQL_RECORD = """
            INSERT INTO token_identity_adoption (adopted) VALUES (?)
            """;

    private final JdbcClient jdbc;
    private final TransactionTemplate tx;
    private final SecurityTokens tokens;

    TokenIdentityAdoption(JdbcClient jdbc, TransactionTemplate tx, SecurityTokens tokens) {
        this.jdbc = jdbc;
        this.tx = tx;
        this.tokens = tokens;
    }

    @Override
    public void afterSingletonsInstantiated() {
        Integer adopted = tx.execute(status -> adopt());
        if (adopted != null && adopted > 0) {
            log.info("adopted {} consumer(s), lease(s) and export(s) owned by positional token names for the "
                    + "identities of the SECURITY_TOKENS entries at those positions", adopted);
        }
    }

    /** @return rows adopted, or null when an earlier start adopted already */
    private Integer adopt() {
        jdbc.sql(SQL_LOCK).update();
        if (jdbc.sql(SQL_ADOPTED_BEFORE).query(Integer.class).single() > 0) {
            return null;
        }
        int n = 0;
        for (Map.Entry<String, String> e : tokens.positionalNames().entrySet()) {
            for (String adopt : SQL_ADOPT) {
                n += jdbc.sql(adopt).params(e.getValue(), e.getKey()).update();
            }
        }
        jdbc.sql(SQL_RECORD).params(n).update();
        return n;
    }
}

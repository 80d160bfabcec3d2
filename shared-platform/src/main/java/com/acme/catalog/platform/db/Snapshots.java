package com.acme.catalog.platform.db;

import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.TransactionTemplate;

/** Transactions that read everything they return from one MVCC snapshot. */
public final class Snapshots {

    private Snapshots() {
    }

    /** A {@code REPEATABLE READ READ ONLY} template: every statement inside sees the same snapshot. */
    public static TransactionTemplate readOnly(PlatformTransactionManager transactions) {
        TransactionTemplate t = new TransactionTemplate(transactions);
        t.setIsolationLevel(TransactionDefinition.ISOLATION_REPEATABLE_READ);
        t.setReadOnly(true);
        return t;
    }
}

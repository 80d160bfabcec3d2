package com.acme.catalog.product.lease;

/**
 * A worker transaction found that its lease no longer holds (another owner, a newer fence, or expired): the
 * transaction rolls back, nothing of it is written.
 */
public class FencedOutException extends RuntimeException {

    public FencedOutException(String message) {
        super(message);
    }
}

package com.acme.catalog.resolver.outbox;

/**
 * How one delivery to a consumer went: acknowledged through a position, or one of three failures, each recorded in
 * {@code relay_delivery.last_error} and retried after a backoff.
 */
sealed interface DeliveryOutcome {

    /** The consumer answered 2xx: it has every event through {@code through}. */
    record Delivered(long through) implements DeliveryOutcome {
    }

    /** Not delivered; {@link #reason()} is the text the relay logs and records as the consumer's last error. */
    sealed interface Failure extends DeliveryOutcome {

        String reason();
    }

    /**
     * Not sent: the consumer's delivery URL is outside {@code RELAY_ALLOWED_DELIVERY_URLS}, so the token never goes
     * there.
     */
    record NotAllowed(String deliveryUrl) implements Failure {

        @Override
        public String reason() {
            return "delivery URL " + abbreviate(deliveryUrl) + " is outside RELAY_ALLOWED_DELIVERY_URLS: not sent; "
                    + "re-register the consumer with an allowed URL, or deregister it";
        }
    }

    /** The consumer answered, with a status other than 2xx. */
    record Rejected(int status, String body) implements Failure {

        @Override
        public String reason() {
            return "HTTP " + status + ": " + abbreviate(body);
        }
    }

    /** No answer: the request could not be made or sent, or timed out ({@code relay.timeout}). */
    record Failed(Exception cause) implements Failure {

        /** @return the cause's message, which may be null */
        @Override
        public String reason() {
            return cause.getMessage();
        }
    }

    /** @return {@code s} cut to 300 characters, for logs and {@code last_error} */
    static String abbreviate(String s) {
        return s == null || s.length() <= 300 ? s : s.substring(0, 300) + "…";
    }
}

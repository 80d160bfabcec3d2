package com.acme.catalog.contracts.retention;

/**
 * {@code POST /v1/retention/consumers} answer (201) for a subscription ({@code "catalog":"*"}): the consumer is
 * registered at {@code durablePosition} 0 of each matching stream opened from now on, and was registered in
 * {@code streams} open streams now (at 0 where it was not registered in their current epoch).
 */
public record SubscriptionRegistered(String consumerId, long durablePosition, String tenant, String catalog,
        String deliveryUrl, int streams) {
}

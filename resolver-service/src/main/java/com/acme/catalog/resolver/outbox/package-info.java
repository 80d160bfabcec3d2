/**
 * The outbox relay: wakes on commit notifications, claims one consumer's delivery at a time through the database,
 * pushes pages of stored wire text to registered delivery URLs (only those the allowlist permits) with exponential
 * backoff on failure, and marks events published. Feeds docs/design.md steps 8 (what the product applies live) and 10
 * (only published events may be pruned).
 */
package com.acme.catalog.resolver.outbox;

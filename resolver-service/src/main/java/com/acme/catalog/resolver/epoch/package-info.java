/**
 * History epochs: the control store (outside the restored database) that issues epochs and keeps the committed
 * high-water mark, the epoch gate ({@code EpochGate}) that refuses writes to a fenced or rolled-back history,
 * rollback detection and epoch rotation under maintenance. docs/design.md step 9 (fence restored history).
 */
package com.acme.catalog.resolver.epoch;

/**
 * The snapshot converter (seed 003's first stage, docs/design.md §7, docs/bootstrap-import.md "Converting a
 * snapshot"): turns a stream's export, or a per-table snapshot an existing catalog system dumps, into the events.json
 * the bootstrap import reads. Every output event is a new synthetic creation carrying no source transaction id,
 * ordinal, count, position or event id; parents come before the releases that name them. No Spring, no database:
 * a library call ({@link com.acme.catalog.resolver.convert.SnapshotConverter}) and a command-line mode of the jar.
 */
package com.acme.catalog.resolver.convert;

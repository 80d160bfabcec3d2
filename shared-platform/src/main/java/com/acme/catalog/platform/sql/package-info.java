/**
 * How both services build their hot statements and read their rows: {@link com.acme.catalog.platform.sql.BoundSql}
 * (text and parameter values assembled together, by position or by name),
 * {@link com.acme.catalog.platform.sql.UnnestColumns} (multi-row parameters as one array per column),
 * {@link com.acme.catalog.platform.sql.JsonTexts} (JSON columns as one separated text) and
 * {@link com.acme.catalog.platform.sql.ResultColumns} (rows read by column name, each name looked up once per
 * result). Plain JDK ({@code java.sql} only): no Spring JDBC. No docs/design.md step of its own.
 */
package com.acme.catalog.platform.sql;

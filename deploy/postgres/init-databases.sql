-- The three databases (compose mounts this into postgres' /docker-entrypoint-initdb.d; the container test's
-- PostgreSQL image runs it after initdb). The control store gets its own database, a stand-in for a separate
-- server: it must never be restored together with the resolver's database (docs/epochs.md).
CREATE DATABASE resolver;
CREATE DATABASE product;
CREATE DATABASE control;

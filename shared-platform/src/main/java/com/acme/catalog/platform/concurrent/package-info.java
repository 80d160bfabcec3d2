/**
 * The services' background threads, made one way (daemon, named, logging what escapes them). No docs/design.md step of
 * its own.
 */
package com.acme.catalog.platform.concurrent;

/**
 * Only the old name of the services' shared {@code platform.concurrent.PeriodicTasks}, kept while two schedulers still
 * import it. Depends on no other package of the service.
 */
package com.acme.catalog.resolver.periodic;

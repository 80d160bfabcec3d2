/**
 * The lifecycle the resolver's background jobs share ({@link com.acme.catalog.resolver.periodic.PeriodicTasks}):
 * tasks on threads of their own, run at a fixed delay, a failure logged by its owner without ending the schedule,
 * stopped by interrupting and waiting. Depends on no other package of the service, so every capability may use it.
 */
package com.acme.catalog.resolver.periodic;

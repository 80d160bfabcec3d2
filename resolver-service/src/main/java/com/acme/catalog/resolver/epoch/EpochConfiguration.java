package com.acme.catalog.resolver.epoch;

import com.acme.catalog.platform.maintenance.MaintenanceConfiguration;

import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;

/** Binds {@code control.*} and brings the maintenance switch and endpoints over the resolver's own database. */
@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties(ControlStoreProperties.class)
@Import(MaintenanceConfiguration.class)
class EpochConfiguration {
}

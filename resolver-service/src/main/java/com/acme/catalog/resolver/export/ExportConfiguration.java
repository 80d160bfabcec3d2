package com.acme.catalog.resolver.export;

import com.acme.catalog.platform.objectstore.ObjectStoreConfiguration;

import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;

/** Binds {@code export.*} and provides the object store exports are written to ({@code OBJECT_STORE_URI}). */
@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties(ExportProperties.class)
@Import(ObjectStoreConfiguration.class)
class ExportConfiguration {
}

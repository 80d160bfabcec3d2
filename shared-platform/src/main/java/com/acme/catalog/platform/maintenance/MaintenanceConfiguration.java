package com.acme.catalog.platform.maintenance;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.transaction.PlatformTransactionManager;

/**
 * The maintenance switch over the service's own database, and its endpoints when the service runs a web server.
 * Each service imports it and migrates its own {@code maintenance_mode} table.
 */
@Configuration(proxyBeanMethods = false)
@Import(MaintenanceConfiguration.Web.class)
public class MaintenanceConfiguration {

    /** The service's {@link MaintenanceResume} beans are looked up when maintenance is turned off, not before. */
    @Bean
    MaintenanceSwitch maintenanceSwitch(JdbcClient jdbc, JdbcTemplate template,
            PlatformTransactionManager transactions, ObjectProvider<MaintenanceResume> resume) {
        return new MaintenanceSwitch(jdbc, template, transactions, () -> resume.orderedStream().toList());
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
    @Import(MaintenanceController.class)
    static class Web {
    }
}

package com.acme.catalog.product.maintenance;

import com.acme.catalog.platform.maintenance.MaintenanceConfiguration;
import com.acme.catalog.platform.maintenance.MaintenanceSwitch;

import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.web.servlet.config.annotation.InterceptorRegistry;
import org.springframework.web.servlet.config.annotation.WebMvcConfigurer;

/**
 * The product's maintenance mode (docs/epochs.md): the shared switch and endpoints over the product's database;
 * public serving pauses here ({@link ServingPause}); deliveries and the recovery worker's catch-up pause at the
 * serving lock ({@code GenerationRepository.lockServing}).
 */
@Configuration(proxyBeanMethods = false)
@Import(MaintenanceConfiguration.class)
class ProductMaintenanceConfiguration implements WebMvcConfigurer {

    private final MaintenanceSwitch maintenance;

    ProductMaintenanceConfiguration(MaintenanceSwitch maintenance) {
        this.maintenance = maintenance;
    }

    @Override
    public void addInterceptors(InterceptorRegistry registry) {
        registry.addInterceptor(new ServingPause(maintenance)).addPathPatterns("/v1/catalog/**");
    }
}

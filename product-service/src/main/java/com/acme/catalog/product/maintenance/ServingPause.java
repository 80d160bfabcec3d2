package com.acme.catalog.product.maintenance;

import com.acme.catalog.platform.maintenance.MaintenanceSwitch;

import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.springframework.web.servlet.HandlerInterceptor;

/**
 * Public serving pauses while the product is in maintenance: every public catalog read answers 503
 * {@code MAINTENANCE} (mapped like every failure, once, by the shared exception handler). Read per request from the
 * product's database, so a switch on any instance reaches every instance at once.
 */
class ServingPause implements HandlerInterceptor {

    private final MaintenanceSwitch maintenance;

    ServingPause(MaintenanceSwitch maintenance) {
        this.maintenance = maintenance;
    }

    @Override
    public boolean preHandle(HttpServletRequest request, HttpServletResponse response, Object handler) {
        if (maintenance.status().enabled()) {
            throw MaintenanceSwitch.refused("public serving");
        }
        return true;
    }
}

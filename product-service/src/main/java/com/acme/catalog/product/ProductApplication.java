package com.acme.catalog.product;

import com.acme.catalog.platform.db.DatabaseCreator;
import com.acme.catalog.platform.objectstore.ObjectStoreConfiguration;
import com.acme.catalog.platform.web.SharedWebConfiguration;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;

/** The product: projects the resolver's events into public catalog views and search, rebuildable at any time. */
@SpringBootApplication
@Import({SharedWebConfiguration.class, ObjectStoreConfiguration.class})
public class ProductApplication {

    public static void main(String[] args) {
        SpringApplication.run(ProductApplication.class, args);
    }

    @Bean
    static DatabaseCreator databaseCreator() {
        return new DatabaseCreator();
    }
}

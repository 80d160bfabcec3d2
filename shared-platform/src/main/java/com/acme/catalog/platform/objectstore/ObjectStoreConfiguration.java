package com.acme.catalog.platform.objectstore;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import com.acme.catalog.contracts.objectstore.ObjectStore;

/**
 * The {@link ObjectStore} bean both services use, from {@code OBJECT_STORE_URI} ({@code file:./data/objects} by
 * default, or {@code s3://bucket/prefix}), {@code OBJECT_STORE_S3_ENDPOINT} (an S3-compatible endpoint; path-style
 * addressing then, unless {@code OBJECT_STORE_PATH_STYLE=false}), {@code AWS_REGION} and the AWS default credential
 * chain. The property names are the relaxed forms of those variables ({@code object.store.uri}, …), so tests can
 * set them as properties. Import it with {@code @Import(ObjectStoreConfiguration.class)}.
 */
@Configuration(proxyBeanMethods = false)
public class ObjectStoreConfiguration {

    /** The configured store; an S3 store's client is closed with the context. */
    @Bean
    public ObjectStore objectStore(@Value("${object.store.uri:file:./data/objects}") String uri,
            @Value("${object.store.s3-endpoint:}") String s3Endpoint,
            @Value("${aws.region:}") String region,
            @Value("${object.store.path-style:}") String pathStyle) {
        Boolean path = pathStyle == null || pathStyle.isBlank() ? null : Boolean.valueOf(pathStyle.strip());
        return ObjectStores.fromUri(uri, s3Endpoint, region, path);
    }
}

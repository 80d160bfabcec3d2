package com.acme.catalog.product.recovery;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import com.acme.catalog.testsupport.FreshDatabase;

import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.core.annotation.AliasFor;
import org.springframework.test.context.TestPropertySource;

/**
 * The whole product on a random port over its own fresh database, with the recovery worker enabled and backing off
 * fast (0.1 s to 0.4 s), one token per role ({@code op}, {@code r}, {@code c}) and {@code c} as the token it sends
 * the resolver. {@link #properties} holds what differs per test class (consumer and instance ids, intervals, listed
 * streams); it takes precedence over the shared set, so a class never repeats a shared key.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@FreshDatabase
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = {
        "security.tokens=op=operator;r=relay;c=consumer", "product.resolver-token=c",
        "product.recovery.enabled=true",
        "product.recovery.initial-backoff=PT0.1S", "product.recovery.max-backoff=PT0.4S"})
@TestPropertySource
@interface ProductWithRecovery {

    /** The test class's own properties, {@code key=value}. */
    @AliasFor(annotation = TestPropertySource.class, attribute = "properties")
    String[] properties() default {};
}

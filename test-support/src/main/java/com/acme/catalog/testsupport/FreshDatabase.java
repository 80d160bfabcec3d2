package com.acme.catalog.testsupport;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.springframework.test.annotation.DirtiesContext;

/**
 * Gives the annotated Spring test class its own freshly created PostgreSQL database, bound to
 * {@code spring.datasource.*}, and one more database for each prefix in {@link #extra()} (bound to
 * {@code <prefix>.url}, {@code .username}, {@code .password}). The context is closed after the class and
 * the databases are dropped with it, so no two test classes ever see each other's rows.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Inherited
@DirtiesContext(classMode = DirtiesContext.ClassMode.AFTER_CLASS)
public @interface FreshDatabase {

    /** Property prefixes of further datasources that each get their own database, e.g. {@code control.datasource}. */
    String[] extra() default {};
}

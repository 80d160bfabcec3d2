package com.acme.catalog.testsupport;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.beans.factory.support.DefaultSingletonBeanRegistry;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.env.MapPropertySource;
import org.springframework.test.context.ContextConfigurationAttributes;
import org.springframework.test.context.ContextCustomizer;
import org.springframework.test.context.ContextCustomizerFactory;
import org.springframework.test.context.MergedContextConfiguration;

/** Creates the databases {@link FreshDatabase} asks for when the test's application context starts. */
public final class FreshDatabaseContextCustomizerFactory implements ContextCustomizerFactory {

    @Override
    public ContextCustomizer createContextCustomizer(Class<?> testClass,
            List<ContextConfigurationAttributes> configAttributes) {
        FreshDatabase annotation = AnnotatedElementUtils.findMergedAnnotation(testClass, FreshDatabase.class);
        return annotation == null ? null : new Customizer(testClass, annotation.extra());
    }

    private record Customizer(Class<?> testClass, String[] extra) implements ContextCustomizer {

        @Override
        public void customizeContext(ConfigurableApplicationContext context, MergedContextConfiguration config) {
            Map<String, Object> props = new LinkedHashMap<>();
            List<TestDatabase> created = new ArrayList<>();
            TestDatabase main = TestDatabase.create(testClass.getSimpleName());
            created.add(main);
            bind(props, "spring.datasource", main);
            for (String prefix : extra) {
                TestDatabase db = TestDatabase.create(testClass.getSimpleName() + "_" + prefix);
                created.add(db);
                bind(props, prefix, db);
            }
            context.getEnvironment().getPropertySources().addFirst(new MapPropertySource("freshDatabase", props));
            // registered before any bean, so destroyed after all of them: pools and listeners close first
            ((DefaultSingletonBeanRegistry) context.getBeanFactory()).registerDisposableBean("freshDatabaseDropper",
                    () -> created.forEach(TestDatabase::close));
        }

        private static void bind(Map<String, Object> props, String prefix, TestDatabase db) {
            props.put(prefix + ".url", db.jdbcUrl());
            props.put(prefix + ".username", db.username());
            props.put(prefix + ".password", db.password() == null ? "" : db.password());
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Customizer c && c.testClass.equals(testClass);
        }

        @Override
        public int hashCode() {
            return testClass.hashCode();
        }
    }
}

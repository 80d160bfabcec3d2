package com.acme.catalog.testsupport;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * The annotated test class runs PostgreSQL's own client tools ({@code pg_dump}, {@code pg_restore}, {@code psql})
 * against the test server. It is skipped, with the reason in the report, when the tests run on the embedded
 * PostgreSQL ({@link TestDatabase}): that one ships no client tools, and the operating system's, where there are
 * any, need not match its version.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Inherited
@ExtendWith(NeedsPostgresTools.Condition.class)
public @interface NeedsPostgresTools {

    /** Skips the class on the embedded server. */
    final class Condition implements ExecutionCondition {

        @Override
        public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
            return evaluate(PostgresServer.get());
        }

        static ConditionEvaluationResult evaluate(PostgresServer server) {
            return java.util.Optional.ofNullable(server.embeddedBecause())
                    .map(why -> ConditionEvaluationResult.disabled("skipped: needs pg_dump/pg_restore/psql against "
                            + "the test server, and the tests run on the embedded PostgreSQL, which has none ("
                            + why + ")"))
                    .orElse(ConditionEvaluationResult.enabled("the tests run on a real PostgreSQL server"));
        }
    }
}

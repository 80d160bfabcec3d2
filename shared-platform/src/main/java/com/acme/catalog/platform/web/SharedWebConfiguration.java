package com.acme.catalog.platform.web;

import java.util.List;
import java.util.Map;

import com.acme.catalog.contracts.ProblemCode;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.apache.catalina.core.StandardHost;
import org.springframework.boot.tomcat.TomcatConnectorCustomizer;
import org.springframework.boot.tomcat.TomcatContextCustomizer;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.core.Ordered;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.config.observation.SecurityObservationSettings;
import org.springframework.security.config.http.SessionCreationPolicy;
import org.springframework.security.web.SecurityFilterChain;
import org.springframework.security.web.authentication.AnonymousAuthenticationFilter;
import org.springframework.security.web.firewall.RequestRejectedHandler;
import org.springframework.web.servlet.config.annotation.WebMvcConfigurer;
import tools.jackson.databind.ObjectMapper;

/**
 * Web plumbing both services share: bearer-token security (401/403 as problem+json), the request body cap and
 * the exception mapping. Each service contributes a {@link PublicPaths} bean naming what needs no token. Servlet
 * web applications only: command-line modes (the resolver's bootstrap import) start without a web server.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@Import({ApiExceptionHandler.class, CleanTextBodyAdvice.class})
@EnableConfigurationProperties(BodyLimitProperties.class)
public class SharedWebConfiguration {

    /** JSON only: no XML converter, and an {@code Accept} without JSON is 406 before any handler runs. */
    @Bean
    WebMvcConfigurer jsonOnlyMvc() {
        return new JsonOnlyMvc();
    }

    /** Paths answered without a token, besides health and metrics. */
    public record PublicPaths(List<String> patterns) {
    }

    /**
     * The OpenAPI description's shared parts, where springdoc is on the classpath: the problem responses of every
     * operation, and the service's info, servers and examples ({@link OpenApiDocument}).
     */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "org.springdoc.core.customizers.OpenApiCustomizer")
    static class OpenApi {
        @Bean
        OpenApiProblems openApiProblems(List<PublicPaths> publicPaths) {
            return new OpenApiProblems(publicPaths.stream().flatMap(p -> p.patterns().stream()).toList());
        }

        @Bean
        OpenApiDocument openApiDocument() {
            return OpenApiDocument.load(OpenApi.class.getClassLoader());
        }

        @Bean
        io.swagger.v3.oas.models.OpenAPI openApiBase(OpenApiDocument document) {
            return document.base();
        }
    }

    @Bean
    SecurityTokens securityTokens(@Value("${security.tokens:}") String spec) {
        return SecurityTokens.parse(spec);
    }

    /**
     * No Spring Security observations: with them every filter of the chain is wrapped in an observation decorator on
     * every request (seen in the profile of each write and delivery). Request metrics stay in
     * {@code http_server_requests}.
     */
    @Bean
    static SecurityObservationSettings noSecurityObservations() {
        return SecurityObservationSettings.noObservations();
    }

    @Bean
    SecurityFilterChain apiSecurity(HttpSecurity http, SecurityTokens tokens, ObjectMapper json,
            List<PublicPaths> publicPaths) throws Exception {
        String[] open = publicPaths.stream().flatMap(p -> p.patterns().stream()).toArray(String[]::new);
        http.csrf(c -> c.disable())
                .httpBasic(b -> b.disable())
                .formLogin(f -> f.disable())
                .logout(l -> l.disable())
                .requestCache(r -> r.disable())
                .sessionManagement(s -> s.sessionCreationPolicy(SessionCreationPolicy.STATELESS))
                .authorizeHttpRequests(a -> a
                        .requestMatchers("/actuator/health", "/actuator/health/**", "/actuator/prometheus", "/error")
                        .permitAll()
                        // the OpenAPI description and Swagger UI (springdoc): the API's shape, no data
                        .requestMatchers("/v3/api-docs", "/v3/api-docs/**", "/swagger-ui.html", "/swagger-ui/**")
                        .permitAll()
                        .requestMatchers(open).permitAll()
                        .anyRequest().authenticated())
                .exceptionHandling(e -> e
                        .authenticationEntryPoint((req, res, ex) -> Problems.write(res, json,
                                ProblemCode.UNAUTHENTICATED, "a valid bearer token is required", req.getRequestURI()))
                        .accessDeniedHandler((req, res, ex) -> Problems.write(res, json, ProblemCode.FORBIDDEN,
                                "this token may not do that", req.getRequestURI())))
                .addFilterBefore(new BearerTokenFilter(tokens), AnonymousAuthenticationFilter.class);
        return http.build();
    }

    /**
     * The security firewall refuses paths a client could use to smuggle ids past validation (encoded {@code %},
     * {@code /} or {@code ;}, double slashes, {@code ..}). Those are ids no endpoint accepts: 400 INVALID_ID as
     * problem+json, like every other bad id, instead of the servlet container's default error page.
     */
    @Bean
    RequestRejectedHandler problemJsonRequestRejectedHandler(ObjectMapper json) {
        return (req, res, ex) -> Problems.write(res, json, ProblemCode.INVALID_ID,
                "the request path was refused: it holds an encoded '%', '/', '\\' or ';', a double slash, a dot "
                        + "segment or a control character, which no id may contain", req.getRequestURI());
    }

    /**
     * Tomcat answers an encoded {@code /} in a path with its own HTML 400 before any filter runs; passing it through
     * lets the firewall above refuse it as problem+json. Nothing decodes it: it never reaches a controller.
     */
    @Bean
    TomcatConnectorCustomizer encodedSlashReachesTheFirewall() {
        return connector -> connector.setEncodedSolidusHandling("passthrough");
    }

    /**
     * Tomcat reads a request body from the socket {@code socket.appReadBufSize} bytes at a time (8 KiB by default:
     * 128 reads, each through the whole input stack, for a 1 MiB evidence body or inbox batch). Each open connection
     * holds one buffer of this size, so it stays modest.
     */
    @Bean
    TomcatConnectorCustomizer socketReadBuffer(@Value("${http.socket-read-buffer-bytes:8192}") int bytes) {
        if (bytes < 1024 || bytes > 1024 * 1024) {
            throw new IllegalArgumentException("http.socket-read-buffer-bytes must be 1024..1048576, got " + bytes);
        }
        return connector -> {
            if (!connector.setProperty("socket.appReadBufSize", Integer.toString(bytes))) {
                throw new IllegalStateException("Tomcat's connector did not take socket.appReadBufSize");
            }
        };
    }

    /**
     * What Tomcat refuses on its own (a {@code %00} or {@code %5C} in a path, a header over the size limit) is
     * answered by the host's error report valve before any filter: problem+json there too, not Tomcat's HTML page.
     */
    @Bean
    TomcatContextCustomizer problemJsonErrorReports() {
        return context -> {
            if (context.getParent() instanceof StandardHost host) {
                host.setErrorReportValveClass(ProblemJsonErrorReportValve.class.getName());
            }
        };
    }

    /**
     * The default cap of every body; services contribute the caps of exact routes as {@link BodyLimitFilter.RouteLimit}
     * beans (the resolver's bootstrap import, its evidence intake, the product's inbox).
     */
    @Bean
    FilterRegistrationBean<BodyLimitFilter> bodyLimitFilter(ObjectMapper json, BodyLimitProperties limits,
            ObjectProvider<BodyLimitFilter.RouteLimit> routeLimits) {
        var registration = new FilterRegistrationBean<>(new BodyLimitFilter(limits.maxBodyBytes(), Map.of(),
                routeLimits.orderedStream().toList(), json));
        registration.setOrder(Ordered.HIGHEST_PRECEDENCE + 10);
        return registration;
    }

    /** A {@code %00} in any query parameter is 400 before a controller runs ({@link QueryTextFilter}). */
    @Bean
    FilterRegistrationBean<QueryTextFilter> queryTextFilter(ObjectMapper json) {
        var registration = new FilterRegistrationBean<>(new QueryTextFilter(json));
        registration.setOrder(Ordered.HIGHEST_PRECEDENCE + 11);
        return registration;
    }
}

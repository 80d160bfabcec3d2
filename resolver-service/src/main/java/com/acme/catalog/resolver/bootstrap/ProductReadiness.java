package com.acme.catalog.resolver.bootstrap;

import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

import com.acme.catalog.contracts.ApiException;
import com.acme.catalog.contracts.ProblemCode;
import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.contracts.checksum.AcceptedStateChecksum.TableChecksum;
import com.acme.catalog.contracts.checksum.ChecksumAnswer;
import com.acme.catalog.contracts.checksum.ChecksumProfile;
import com.acme.catalog.platform.db.Snapshots;
import com.acme.catalog.resolver.export.StateChecksumRepository;
import com.acme.catalog.resolver.stream.Cursor;
import com.acme.catalog.resolver.stream.CursorRepository;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;

/**
 * Waits, after an import's last commit, until the product serves what it imported (docs/bootstrap-import.md "Ready
 * means served"): every {@code bootstrap.ready.poll-interval} it reads the product's
 * {@code GET /v1/projection-completeness?tenant=&catalog=}; once the stream is {@code CURRENT} at the import's epoch
 * and last position, it compares both checksum profiles, the resolver's state checksum (read in one snapshot, as
 * {@code GET …/state-checksum} does) against the product's {@code GET …/projection-checksum}, and stops when
 * {@link ReadinessJudge} says ready or {@code bootstrap.ready.timeout} has passed. One stream, one caller: a waiting
 * import polls its own stream only, and only while it waits.
 */
@Component
class ProductReadiness {

    private static final Logger log = LoggerFactory.getLogger(ProductReadiness.class);

    private final ReadinessProperties properties;
    private final TransactionTemplate snapshot;
    private final CursorRepository cursors;
    private final StateChecksumRepository checksums;
    private final ObjectMapper json;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    ProductReadiness(ReadinessProperties properties, PlatformTransactionManager tm, CursorRepository cursors,
            StateChecksumRepository checksums, ObjectMapper json) {
        this.properties = properties;
        this.snapshot = Snapshots.readOnly(tm);
        this.cursors = cursors;
        this.checksums = checksums;
        this.json = json;
    }

    /**
     * Refuses a wait nobody configured, before the import writes anything.
     *
     * @throws ApiException 400 {@code INVALID_BODY} without {@code bootstrap.ready.product-url}
     */
    void requireConfigured() {
        if (!properties.configured()) {
            throw new ApiException(ProblemCode.INVALID_BODY, "waitReady needs the product's URL: set "
                    + "bootstrap.ready.product-url (BOOTSTRAP_PRODUCT_URL) and bootstrap.ready.product-token");
        }
    }

    /**
     * Waits until the product serves what the completed import wrote and records what it found on the report
     * ({@code readyMs}, {@code verification}).
     *
     * @throws ProductNotReadyException when it did not within the timeout
     */
    void verify(StreamId stream, ImportReport report) {
        long t0 = System.nanoTime();
        ImportSummary summary = report.summary();
        ImportSummary.Verification v = await(stream, summary.epoch(), summary.lastPosition());
        report.readiness(v, System.nanoTime() - t0);
        if (!v.ready()) {
            throw new ProductNotReadyException(report);
        }
    }

    /**
     * Waits until the product serves the stream's {@code epoch} through {@code lastPosition} with equal checksums,
     * or the timeout passed.
     *
     * @return what was found last; {@code ready} says which
     */
    ImportSummary.Verification await(StreamId stream, long epoch, long lastPosition) {
        long deadline = System.nanoTime() + properties.timeout().toNanos();
        ReadinessJudge.Verdict verdict;
        ReadinessJudge.Completeness completeness;
        while (true) {
            String unreachable = null;
            completeness = null;
            try {
                completeness = completeness(stream);
            } catch (IOException | RuntimeException e) {
                unreachable = e.getMessage();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                unreachable = "interrupted";
            }
            Map<String, ChecksumAnswer> resolver = new LinkedHashMap<>();
            Map<String, ChecksumAnswer> product = new LinkedHashMap<>();
            String notCurrent = ReadinessJudge.notCurrent(epoch, lastPosition, completeness, unreachable);
            verdict = ReadinessJudge.Verdict.no(notCurrent, Map.of());
            if (notCurrent == null) {
                // the product is current: compare the checksums, each side in one snapshot of its own
                for (String profile : ReadinessJudge.PROFILES) {
                    resolver.put(profile, resolverChecksum(stream, ChecksumProfile.named(profile)));
                    try {
                        product.put(profile, productChecksum(stream, profile));
                    } catch (IOException | RuntimeException e) {
                        log.debug("projection checksum of {} ({}) not read: {}", stream, profile, e.getMessage());
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }
                verdict = ReadinessJudge.judge(epoch, lastPosition, completeness, null, resolver, product);
            }
            if (verdict.ready() || System.nanoTime() >= deadline || Thread.currentThread().isInterrupted()) {
                break;
            }
            sleep(properties.pollInterval());
        }
        ReadinessJudge.Completeness c = completeness;
        return new ImportSummary.Verification(verdict.ready(), properties.productUrl(), c == null ? null : c.state(),
                c == null ? null : c.epoch(), c == null ? null : c.verifiedThrough(), verdict.checksums(),
                verdict.ready() ? null : verdict.reason());
    }

    private ReadinessJudge.Completeness completeness(StreamId s) throws IOException, InterruptedException {
        JsonNode n = getJson("/v1/projection-completeness?tenant=" + enc(s.tenant()) + "&catalog=" + enc(s.catalog()));
        return new ReadinessJudge.Completeness(text(n, "state"), number(n, "epoch"), number(n, "verifiedThrough"),
                text(n, "reason"));
    }

    private ChecksumAnswer productChecksum(StreamId s, String profile) throws IOException, InterruptedException {
        JsonNode n = getJson("/v1/streams/" + enc(s.tenant()) + "/" + enc(s.catalog())
                + "/projection-checksum?profile=" + enc(profile));
        Map<String, TableChecksum> tables = new LinkedHashMap<>();
        n.path("tables").properties().forEach(e -> tables.put(e.getKey(),
                new TableChecksum(e.getValue().path("rows").asLong(), e.getValue().path("sha256").stringValue())));
        return new ChecksumAnswer(n.path("epoch").asLong(), n.path("position").asLong(), profile, tables);
    }

    private ChecksumAnswer resolverChecksum(StreamId s, ChecksumProfile profile) {
        return snapshot.execute(status -> {
            Cursor c = cursors.read(s).orElse(null);
            return ChecksumAnswer.of(c == null ? 1 : c.epoch(), c == null ? 0 : c.position(), profile,
                    checksums.compute(s, profile));
        });
    }

    /** @throws IOException naming the status when the product answers anything but 200 */
    private JsonNode getJson(String path) throws IOException, InterruptedException {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(properties.productUrl().replaceAll("/+$", "")
                + path)).timeout(Duration.ofSeconds(30)).header("Accept", "application/json");
        if (!properties.productToken().isEmpty()) {
            b.header("Authorization", "Bearer " + properties.productToken());
        }
        HttpResponse<String> r = http.send(b.build(), HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != 200) {
            JsonNode problem = r.body() == null || r.body().isBlank() ? json.missingNode() : json.readTree(r.body());
            throw new IOException("GET " + path + " answered " + r.statusCode()
                    + (problem.path("code").isString() ? " " + problem.path("code").stringValue() : ""));
        }
        return json.readTree(r.body());
    }

    private static String text(JsonNode n, String field) {
        return n.path(field).isString() ? n.path(field).stringValue() : null;
    }

    private static Long number(JsonNode n, String field) {
        return n.path(field).isIntegralNumber() ? n.path(field).longValue() : null;
    }

    private static String enc(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8);
    }

    private static void sleep(Duration d) {
        try {
            Thread.sleep(d.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}

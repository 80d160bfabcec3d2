package com.acme.catalog.resolver.evidence;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.resolver.support.EvidenceIT;

import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.springframework.test.context.TestPropertySource;
import tools.jackson.databind.JsonNode;

/**
 * Evidence retention with a one-hour window: artifacts kept by a fixture mark, an open case, a REJECT, an ACCEPT or
 * a decision's further evidence survive however idle; unreferenced ones expire once idle for the window (rows with
 * their runs and claims, and the object), not before; a missing object is flagged, reported and kept; an expiry
 * whose object delete did not complete is finished by the next run.
 */
@TestPropertySource(properties = "evidence.retention.window=PT1H")
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class EvidenceRetentionIT extends EvidenceIT {

    private static final Duration IDLE = Duration.ofHours(2);

    @Test
    @Order(1)
    void metricsAreRegisteredAtStart() throws Exception {
        String metrics = metrics();
        assertThat(metrics).contains("resolver_evidence_missing{application=\"resolver\"} 0.0")
                .contains("resolver_evidence_expired_total{application=\"resolver\"} 0.0")
                .contains("resolver_evidence_intake_total{application=\"resolver\",outcome=\"created\"} 0.0")
                .contains("resolver_evidence_retention_runs_total{application=\"resolver\",outcome=\"completed\"} 0.0");
    }

    @Test
    @Order(2)
    void referencedArtifactsSurviveAndUnreferencedOnesExpireAfterTheWindow() throws Exception {
        StreamId s = new StreamId("ret", "shoes");
        UUID fixture = artifact("ret", "<p>fixture</p>");
        assertThat(put("/v1/tenants/ret/evidence/" + fixture + "/fixture", "op", Map.of("fixture", true))
                .body().path("fixture").booleanValue()).isTrue();
        UUID open = artifact("ret", "<p>open case</p>");
        openCase(s, claims(s, open, "sku-1", Map.of("name", "a")), upsert("sku-1"));
        UUID rejected = artifact("ret", "<p>rejected</p>");
        UUID rejectedCase = openCase(s, claims(s, rejected, "sku-2", Map.of("name", "b")), upsert("sku-2"));
        assertThat(decide(s, rejectedCase, "REJECT", List.of()).status()).isEqualTo(201);
        UUID accepted = artifact("ret", "<p>accepted</p>");
        UUID furtherEvidence = artifact("ret", "<p>screenshot</p>");
        UUID acceptedCase = openCase(s, claims(s, accepted, "sku-3", Map.of("name", "c")), upsert("sku-3"));
        assertThat(decide(s, acceptedCase, "ACCEPT", List.of(furtherEvidence)).status()).isEqualTo(201);
        UUID fresh = artifact("ret", "<p>fresh</p>");
        UUID idleWithRun = artifact("ret", "<p>idle with a run</p>");
        claims(s, idleWithRun, "sku-4", Map.of("name", "d", "price", 4));
        UUID idle = artifact("ret", "<p>idle</p>");
        for (UUID a : List.of(fixture, open, rejected, accepted, furtherEvidence, idleWithRun, idle)) {
            idle(a, IDLE);
        }
        idle(fresh, Duration.ofMinutes(59));

        Response run = post("/v1/evidence-retention/run?tenant=ret", "op", null);
        assertThat(run.status()).as(run.raw()).isEqualTo(200);
        assertThat(run.text("outcome")).isEqualTo("COMPLETED");
        assertThat(run.number("checked")).isEqualTo(8);
        assertThat(run.number("candidates")).isEqualTo(2);
        assertThat(run.number("expired")).isEqualTo(2);
        assertThat(run.number("objectsDeleted")).isEqualTo(2);
        assertThat(run.number("newlyMissing")).isZero();

        for (UUID kept : List.of(fixture, open, rejected, accepted, furtherEvidence, fresh)) {
            assertThat(status(kept)).as("kept %s", kept).isEqualTo("PRESENT");
            assertThat(store.exists("evidence/ret/" + kept)).isTrue();
        }
        for (UUID gone : List.of(idleWithRun, idle)) {
            JsonNode meta = get("/v1/tenants/ret/evidence/" + gone, "w").body();
            assertThat(meta.path("status").stringValue()).isEqualTo("EXPIRED");
            assertThat(meta.path("expiredAt").isString()).isTrue();
            assertThat(store.exists("evidence/ret/" + gone)).isFalse();
            assertThat(get("/v1/tenants/ret/evidence/" + gone + "/content", "w").status()).isEqualTo(404);
            assertThat(jdbc.sql("SELECT count(*) FROM claim WHERE artifact_id = ?").params(gone).query(Long.class)
                    .single()).isZero();
            assertThat(jdbc.sql("SELECT count(*) FROM extraction_run WHERE artifact_id = ?").params(gone)
                    .query(Long.class).single()).isZero();
        }

        JsonNode status = get("/v1/tenants/ret/evidence-retention", "op").body();
        assertThat(status.path("artifacts").longValue()).isEqualTo(6);
        assertThat(status.path("referenced").longValue()).isEqualTo(5);
        assertThat(status.path("unreferenced").longValue()).isEqualTo(1);
        assertThat(status.path("expired").longValue()).isEqualTo(2);
        assertThat(status.path("missing")).isEmpty();
        assertThat(status.path("referencedBy").path("acceptedFacts").longValue()).isEqualTo(2);
        assertThat(status.path("referencedBy").path("decisions").longValue()).isEqualTo(3);
        assertThat(status.path("referencedBy").path("openCases").longValue()).isEqualTo(1);
        assertThat(status.path("referencedBy").path("fixtures").longValue()).isEqualTo(1);
        assertThat(status.path("window").stringValue()).isEqualTo("PT1H");
        assertThat(status.path("lastRun").path("runId").stringValue()).isEqualTo(run.text("runId"));
        assertThat(metrics())
                .contains("resolver_evidence_expired_total{application=\"resolver\"} 2.0");

        assertThat(post("/v1/evidence-retention/run?tenant=ret", "op", null).number("expired")).isZero();
        // an expired artifact takes no new reference; its bytes come back as a new artifact
        Response lateRun = post(stream(s) + "/extraction-runs", "w", Map.of("artifactId", idle.toString(),
                "extractor", "late", "claims", List.of()));
        assertThat(lateRun.code()).isEqualTo("EVIDENCE_EXPIRED");
        Response back = intake("ret", "w", "<p>idle</p>".getBytes(), "text/html");
        assertThat(back.status()).isEqualTo(201);
        assertThat(back.text("artifactId")).isNotEqualTo(idle.toString());
    }

    @Test
    @Order(3)
    void activityStartsTheWindowAgain() throws Exception {
        StreamId s = new StreamId("active", "shoes");
        UUID rerun = artifact("active", "<p>run again</p>");
        UUID resent = artifact("active", "<p>sent again</p>");
        idle(rerun, IDLE);
        idle(resent, IDLE);
        claims(s, rerun, "sku-1", Map.of("name", "again"));
        assertThat(intake("active", "w", "<p>sent again</p>".getBytes(), "text/html").status()).isEqualTo(200);
        assertThat(post("/v1/evidence-retention/run?tenant=active", "op", null).number("expired")).isZero();
        assertThat(status(rerun)).isEqualTo("PRESENT");
        assertThat(status(resent)).isEqualTo("PRESENT");
    }

    @Test
    @Order(4)
    void aMissingObjectIsFlaggedReportedAndKept() throws Exception {
        StreamId s = new StreamId("gone", "shoes");
        UUID unreferenced = artifact("gone", "<p>lost, unreferenced</p>");
        UUID cased = artifact("gone", "<p>lost, in a case</p>");
        openCase(s, claims(s, cased, "sku-1", Map.of("name", "x")), upsert("sku-1"));
        idle(unreferenced, IDLE);
        byte[] casedBytes = store.get("evidence/gone/" + cased).readAllBytes();
        store.delete("evidence/gone/" + unreferenced);
        store.delete("evidence/gone/" + cased);

        Response run = post("/v1/evidence-retention/run?tenant=gone", "op", null);
        assertThat(run.number("newlyMissing")).isEqualTo(2);
        assertThat(run.number("missing")).isEqualTo(2);
        assertThat(run.number("expired")).as("a missing artifact is never expired").isZero();
        assertThat(status(unreferenced)).isEqualTo("MISSING");
        assertThat(status(cased)).isEqualTo("MISSING");
        JsonNode status = get("/v1/tenants/gone/evidence-retention", "w").body();
        assertThat(status.path("missing")).extracting(m -> m.path("artifactId").stringValue())
                .containsExactlyInAnyOrder(unreferenced.toString(), cased.toString());
        assertThat(metrics())
                .contains("resolver_evidence_missing{application=\"resolver\"} 2.0");
        assertThat(post("/v1/evidence-retention/run?tenant=gone", "op", null).number("newlyMissing")).isZero();

        store.put("evidence/gone/" + cased, "text/html", out -> out.write(casedBytes)); // restored from versioning
        Response after = post("/v1/evidence-retention/run?tenant=gone", "op", null);
        assertThat(after.number("reappeared")).isEqualTo(1);
        assertThat(after.number("missing")).isEqualTo(1);
        assertThat(status(cased)).isEqualTo("PRESENT");
        assertThat(status(unreferenced)).isEqualTo("MISSING");
        assertThat(metrics())
                .contains("resolver_evidence_missing{application=\"resolver\"} 1.0");
    }

    @Test
    @Order(5)
    void anExpiryWhoseObjectDeleteDidNotCompleteIsFinishedByTheNextRun() throws Exception {
        UUID a = artifact("crash", "<p>expired, object left behind</p>");
        // as if the instance died between the expiry's commit and the object delete
        jdbc.sql("UPDATE evidence_artifact SET expired_at = now() WHERE artifact_id = ?").params(a).update();
        assertThat(store.exists("evidence/crash/" + a)).isTrue();
        Response run = post("/v1/evidence-retention/run?tenant=crash", "op", null);
        assertThat(run.number("objectsDeleted")).isEqualTo(1);
        assertThat(store.exists("evidence/crash/" + a)).isFalse();
        assertThat(jdbc.sql("SELECT object_deleted_at IS NOT NULL FROM evidence_artifact WHERE artifact_id = ?")
                .params(a).query(Boolean.class).single()).isTrue();
    }

    private String status(UUID artifact) {
        String tenant = jdbc.sql("SELECT tenant FROM evidence_artifact WHERE artifact_id = ?").params(artifact)
                .query(String.class).single();
        return get("/v1/tenants/" + tenant + "/evidence/" + artifact, "w").text("status");
    }

    private static String upsert(String itemId) {
        return "[{\"op\":\"upsertItem\",\"itemId\":\"" + itemId + "\",\"attributes\":{\"name\":\"" + itemId + "\"}}]";
    }
}

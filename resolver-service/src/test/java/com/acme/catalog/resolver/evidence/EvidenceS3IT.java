package com.acme.catalog.resolver.evidence;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import java.util.UUID;

import com.acme.catalog.platform.objectstore.S3ObjectStore;
import com.acme.catalog.resolver.support.EvidenceIT;

import org.awaitility.Awaitility;
import org.gaul.s3proxy.S3Proxy;
import org.gaul.s3proxy.auth.AuthenticationType;
import org.gaul.s3proxy.nio2blob.TransientNio2BlobStore;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.context.TestPropertySource;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * Evidence on S3 (s3proxy in process, the real protocol): intake streams single-part and multipart objects under
 * the private prefix and reads them back, a body over the cap leaves no object and no open multipart upload, and the
 * scheduled retention job expires an idle unreferenced artifact's object and flags one deleted behind its back.
 */
@TestPropertySource(properties = {"evidence.max-bytes=10MB", "evidence.retention.enabled=true",
        "evidence.retention.interval=PT1S", "evidence.retention.window=PT1H"})
class EvidenceS3IT extends EvidenceIT {

    private static final String BUCKET = "catalog-evidence";
    private static S3Proxy proxy;
    private static S3Client admin;

    @DynamicPropertySource
    static void s3(DynamicPropertyRegistry registry) throws Exception {
        proxy = S3Proxy.builder().blobStore(new TransientNio2BlobStore())
                .endpoint(URI.create("http://127.0.0.1:0"))
                .awsAuthentication(AuthenticationType.AWS_V2_OR_V4, "evidence-access", "evidence-secret")
                .build();
        proxy.start();
        while (!proxy.getState().equals("STARTED")) {
            Thread.sleep(10);
        }
        String endpoint = "http://127.0.0.1:" + proxy.getPort();
        admin = S3Client.builder().endpointOverride(URI.create(endpoint)).region(Region.US_EAST_1)
                .forcePathStyle(true).credentialsProvider(StaticCredentialsProvider.create(
                        AwsBasicCredentials.create("evidence-access", "evidence-secret"))).build();
        admin.createBucket(b -> b.bucket(BUCKET));
        // the AWS default credential chain reads these system properties (as it reads AWS_ACCESS_KEY_ID, …)
        System.setProperty("aws.accessKeyId", "evidence-access");
        System.setProperty("aws.secretAccessKey", "evidence-secret");
        registry.add("object.store.uri", () -> "s3://" + BUCKET + "/resolver");
        registry.add("object.store.s3-endpoint", () -> endpoint);
        registry.add("aws.region", () -> "eu-west-1");
    }

    @AfterAll
    static void stop() throws Exception {
        admin.close();
        proxy.stop();
    }

    @Test
    void intakeStreamsToTheBucketAndReadsBack() throws Exception {
        assertThat(store).isInstanceOf(S3ObjectStore.class);
        byte[] small = "<html>s3 evidence</html>".getBytes();
        Response r = intake("acme", "w", small, "text/html");
        assertThat(r.status()).as(r.raw()).isEqualTo(201);
        UUID id = UUID.fromString(r.text("artifactId"));
        assertThat(keys("resolver/evidence/acme/")).containsExactly("resolver/evidence/acme/" + id);
        assertThat(content("acme", id)).isEqualTo(small);
        assertThat(intake("acme", "w", small, "text/html").status()).isEqualTo(200);

        byte[] big = random(9 * 1024 * 1024 + 17); // more than one 8 MiB part: a multipart upload
        Response multipart = intake("acme", "w", big, "application/pdf");
        assertThat(multipart.status()).as(multipart.raw()).isEqualTo(201);
        assertThat(multipart.text("sha256")).isEqualTo(HexFormat.of().formatHex(
                MessageDigest.getInstance("SHA-256").digest(big)));
        assertThat(content("acme", UUID.fromString(multipart.text("artifactId")))).isEqualTo(big);
        assertThat(keys("resolver/exports")).as("evidence never under the exports' prefix").isEmpty();
    }

    @Test
    void aBodyOverTheCapLeavesNothingInTheBucket() throws Exception {
        byte[] over = random(10 * 1024 * 1024 + 1);
        HttpResponse<String> res = HTTP.send(HttpRequest.newBuilder(URI.create(base() + "/v1/tenants/big/evidence"))
                .header("Authorization", "Bearer w").header("Content-Type", "application/pdf")
                .POST(HttpRequest.BodyPublishers.ofInputStream(() -> new ByteArrayInputStream(over))).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(res.statusCode()).as(res.body()).isEqualTo(413);
        assertThat(keys("resolver/evidence/big/")).isEmpty();
        assertThat(admin.listMultipartUploads(b -> b.bucket(BUCKET)).uploads()).as("the upload was aborted").isEmpty();
        assertThat(jdbc.sql("SELECT count(*) FROM evidence_artifact WHERE tenant = 'big'").query(Long.class).single())
                .isZero();
    }

    @Test
    void theScheduledJobExpiresIdleArtifactsAndFlagsMissingObjects() throws Exception {
        UUID idle = artifact("sched", "<p>idle on s3</p>");
        UUID lost = artifact("sched", "<p>lost on s3</p>");
        idle(idle, Duration.ofHours(2));
        admin.deleteObject(b -> b.bucket(BUCKET).key("resolver/evidence/sched/" + lost));
        Awaitility.await().atMost(Duration.ofSeconds(60)).until(() ->
                "EXPIRED".equals(get("/v1/tenants/sched/evidence/" + idle, "w").text("status"))
                        && "MISSING".equals(get("/v1/tenants/sched/evidence/" + lost, "w").text("status")));
        assertThat(keys("resolver/evidence/sched/")).isEmpty();
        assertThat(get("/v1/tenants/sched/evidence-retention", "op").body().path("lastRun").path("kind")
                .stringValue()).isEqualTo("SCHEDULED");
        assertThat(jdbc.sql("SELECT object_deleted_at IS NOT NULL FROM evidence_artifact WHERE artifact_id = ?")
                .params(idle).query(Boolean.class).single()).isTrue();
    }

    private byte[] content(String tenant, UUID id) throws Exception {
        HttpResponse<byte[]> res = HTTP.send(HttpRequest.newBuilder(URI.create(base() + "/v1/tenants/" + tenant
                + "/evidence/" + id + "/content")).header("Authorization", "Bearer w").build(),
                HttpResponse.BodyHandlers.ofByteArray());
        assertThat(res.statusCode()).isEqualTo(200);
        return res.body();
    }

    private static List<String> keys(String prefix) {
        return admin.listObjectsV2(b -> b.bucket(BUCKET).prefix(prefix)).contents().stream().map(S3Object::key)
                .toList();
    }

    private static byte[] random(int n) {
        byte[] b = new byte[n];
        new Random(n).nextBytes(b);
        return b;
    }
}

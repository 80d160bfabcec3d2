package com.acme.catalog.resolver.export;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.time.Duration;

import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.contracts.export.ExportManifest;
import com.acme.catalog.contracts.export.ExportObjectReader;
import com.acme.catalog.platform.objectstore.S3ObjectStore;

import org.awaitility.Awaitility;
import org.gaul.s3proxy.S3Proxy;
import org.gaul.s3proxy.auth.AuthenticationType;
import org.gaul.s3proxy.nio2blob.TransientNio2BlobStore;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import tools.jackson.databind.JsonNode;

/**
 * The S3 path end to end: the service configured only through the {@code OBJECT_STORE_*} / {@code AWS_*}
 * settings writes an export to an S3 server (s3proxy, in process, speaking the real protocol), and the objects
 * read back through S3 verify; older exports are deleted from the bucket.
 */
class S3ExportIT extends AbstractExportIT {

    private static S3Proxy proxy;

    @DynamicPropertySource
    static void s3(DynamicPropertyRegistry registry) throws Exception {
        proxy = S3Proxy.builder().blobStore(new TransientNio2BlobStore())
                .endpoint(URI.create("http://127.0.0.1:0"))
                .awsAuthentication(AuthenticationType.AWS_V2_OR_V4, "export-access", "export-secret")
                .build();
        proxy.start();
        while (!proxy.getState().equals("STARTED")) {
            Thread.sleep(10);
        }
        String endpoint = "http://127.0.0.1:" + proxy.getPort();
        try (S3Client admin = S3Client.builder().endpointOverride(URI.create(endpoint)).region(Region.US_EAST_1)
                .forcePathStyle(true).credentialsProvider(StaticCredentialsProvider.create(
                        AwsBasicCredentials.create("export-access", "export-secret"))).build()) {
            admin.createBucket(b -> b.bucket("catalog-exports"));
        }
        // the AWS default credential chain reads these system properties (as it reads AWS_ACCESS_KEY_ID, …)
        System.setProperty("aws.accessKeyId", "export-access");
        System.setProperty("aws.secretAccessKey", "export-secret");
        registry.add("object.store.uri", () -> "s3://catalog-exports/resolver");
        registry.add("object.store.s3-endpoint", () -> endpoint);
        registry.add("aws.region", () -> "eu-west-1");
        registry.add("export.keep", () -> "1");
    }

    @AfterAll
    static void stop() throws Exception {
        proxy.stop();
    }

    @Test
    void exportsToS3AndReadsBackVerified() throws Exception {
        assertThat(store).isInstanceOf(S3ObjectStore.class);
        assertThat(store.describe()).isEqualTo("s3://catalog-exports/resolver/");
        StreamId s = new StreamId("acme", "s3");
        long w = writeItems(s, 200);
        JsonNode first = export(s);
        assertThat(first.path("status").stringValue()).as(first.toString()).isEqualTo("READY");
        String key = first.path("manifestKey").stringValue();
        ExportManifest manifest = manifest(first.path("exportId").stringValue());
        assertThat(ExportObjectReader.manifest(store, key)).isEqualTo(manifest);
        assertThat(ExportObjectReader.verify(store, key, manifest)).isEqualTo(stateAt(s, w));

        writeItems(s, 5);
        JsonNode second = export(s);
        assertThat(second.path("status").stringValue()).isEqualTo("READY");
        // retirement follows READY (mark first, delete after), so the bucket converges right after
        Awaitility.await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(store.list("exports/acme/s3/"))
                .as("export.keep=1: the older export is gone from the bucket")
                .hasSize(6).allMatch(k -> k.contains(second.path("exportId").stringValue())));
    }
}

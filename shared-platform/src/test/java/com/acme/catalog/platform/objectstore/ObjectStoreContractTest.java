package com.acme.catalog.platform.objectstore;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.DigestInputStream;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.Random;

import com.acme.catalog.contracts.ChainDigest;

import org.gaul.s3proxy.S3Proxy;
import org.gaul.s3proxy.auth.AuthenticationType;
import org.gaul.s3proxy.nio2blob.TransientNio2BlobStore;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import com.acme.catalog.contracts.objectstore.ObjectStore;

/**
 * Both stores honour one contract: streamed writes report the exact size and SHA-256 of what was stored, reads
 * stream it back, listing and deletion work, a missing object is a named failure. S3 runs against s3proxy, an
 * in-process server speaking the real S3 protocol (multipart uploads included).
 */
class ObjectStoreContractTest {

    private static S3Proxy proxy;
    private static S3Client client;

    @TempDir
    Path dir;

    @BeforeAll
    static void startS3() throws Exception {
        proxy = S3Proxy.builder().blobStore(new TransientNio2BlobStore())
                .endpoint(URI.create("http://127.0.0.1:0"))
                .awsAuthentication(AuthenticationType.AWS_V2_OR_V4, "access", "secret")
                .build();
        proxy.start();
        while (!proxy.getState().equals("STARTED")) {
            Thread.sleep(10);
        }
        client = S3Client.builder().endpointOverride(URI.create("http://127.0.0.1:" + proxy.getPort()))
                .region(Region.US_EAST_1).forcePathStyle(true)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("access", "secret")))
                .build();
        client.createBucket(b -> b.bucket("exports"));
    }

    @AfterAll
    static void stopS3() throws Exception {
        client.close();
        proxy.stop();
    }

    @Test
    void fileSystemStore() throws Exception {
        exercise(new FileSystemObjectStore(dir));
        assertThat(Files.list(dir.resolve("a"))).noneMatch(p -> p.getFileName().toString().startsWith(".upload-"));
    }

    @Test
    void s3StoreIncludingMultipart() throws Exception {
        exercise(new S3ObjectStore(client, "exports", "tenant-x/"));
    }

    @Test
    void uriSelectsTheStore() {
        assertThat(ObjectStores.fromUri("file:" + dir, null, null, null).describe()).isEqualTo("file:" + dir);
        assertThat(ObjectStores.fromUri("s3://bucket/some/prefix", "http://127.0.0.1:1", "eu-west-1", null)
                .describe()).isEqualTo("s3://bucket/some/prefix/");
        assertThatThrownBy(() -> ObjectStores.fromUri("ftp://x", null, null, null))
                .hasMessageContaining("file: or s3://");
    }

    private void exercise(ObjectStore store) throws Exception {
        byte[] small = "hello, export".getBytes(StandardCharsets.UTF_8);
        ObjectStore.StoredObject s = store.put("a/small.txt", "text/plain", out -> out.write(small));
        assertThat(s.bytes()).isEqualTo(small.length);
        assertThat(s.sha256()).isEqualTo(sha(small));
        try (InputStream in = store.get("a/small.txt")) {
            assertThat(in.readAllBytes()).isEqualTo(small);
        }

        // larger than one S3 part: streamed in pieces, never built as one array by the store
        long seed = 42;
        long size = S3ObjectStore.PART_SIZE * 2L + 12345;
        ObjectStore.StoredObject big = store.put("a/big.bin", "application/octet-stream", out -> {
            Random r = new Random(seed);
            byte[] chunk = new byte[64 * 1024];
            for (long written = 0; written < size; ) {
                r.nextBytes(chunk);
                int n = (int) Math.min(chunk.length, size - written);
                out.write(chunk, 0, n);
                written += n;
            }
        });
        assertThat(big.bytes()).isEqualTo(size);
        MessageDigest sha = ChainDigest.sha256();
        long read;
        try (InputStream in = new DigestInputStream(store.get("a/big.bin"), sha)) {
            read = in.transferTo(OutputStreamSink.INSTANCE);
        }
        assertThat(read).isEqualTo(size);
        assertThat(HexFormat.of().formatHex(sha.digest())).isEqualTo(big.sha256());

        assertThat(store.list("a/")).containsExactly("a/big.bin", "a/small.txt");
        assertThat(store.exists("a/small.txt")).isTrue();
        store.delete("a/small.txt");
        assertThat(store.exists("a/small.txt")).isFalse();
        assertThatThrownBy(() -> store.get("a/small.txt")).isInstanceOf(ObjectStore.NoSuchObjectException.class);

        assertThatThrownBy(() -> store.put("a/failed.bin", "text/plain", out -> {
            out.write(new byte[1024]);
            throw new IOException("writer failed");
        })).hasMessage("writer failed");
        assertThat(store.exists("a/failed.bin")).as("a failed write leaves no object").isFalse();
    }

    private static String sha(byte[] b) {
        return HexFormat.of().formatHex(ChainDigest.sha256().digest(b));
    }

    private static final class OutputStreamSink extends java.io.OutputStream {
        static final OutputStreamSink INSTANCE = new OutputStreamSink();

        @Override
        public void write(int b) {
        }

        @Override
        public void write(byte[] b, int off, int len) {
        }
    }
}

package com.acme.catalog.platform.objectstore;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;

import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.S3ClientBuilder;
import software.amazon.awssdk.services.s3.model.CompletedPart;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;
import software.amazon.awssdk.services.s3.model.S3Exception;
import software.amazon.awssdk.services.s3.model.S3Object;
import com.acme.catalog.contracts.objectstore.ObjectStore;

/**
 * Objects in an S3 bucket under a key prefix. Writes stream through bounded part buffers: an object up to one
 * part is a single PUT, a larger one a multipart upload (aborted on failure), so no object is ever held whole
 * in memory and none is visible before it is complete.
 */
public final class S3ObjectStore implements ObjectStore, AutoCloseable {

    static final int PART_SIZE = 8 * 1024 * 1024;

    private final S3Client s3;
    private final String bucket;
    private final String prefix;

    public S3ObjectStore(S3Client s3, String bucket, String prefix) {
        this.s3 = s3;
        this.bucket = bucket;
        this.prefix = prefix == null || prefix.isEmpty() ? "" : (prefix.endsWith("/") ? prefix : prefix + "/");
    }

    /** A client for {@code region}, optionally against another endpoint (path-style addressing there). */
    public static S3ObjectStore create(String bucket, String prefix, URI endpoint, String region, boolean pathStyle) {
        S3ClientBuilder b = S3Client.builder()
                .region(Region.of(region == null || region.isBlank() ? "us-east-1" : region))
                .credentialsProvider(DefaultCredentialsProvider.builder().build())
                .forcePathStyle(pathStyle);
        if (endpoint != null) {
            b.endpointOverride(endpoint);
        }
        return new S3ObjectStore(b.build(), bucket, prefix);
    }

    @Override
    public StoredObject put(String key, String contentType, BodyWriter body) throws IOException {
        PartUpload upload = new PartUpload(full(key), contentType);
        try {
            DigestingOutputStream digesting = new DigestingOutputStream(upload);
            body.writeTo(digesting);
            digesting.flush();
            upload.complete();
            return new StoredObject(key, digesting.count(), digesting.sha256());
        } catch (IOException | RuntimeException e) {
            upload.abort();
            throw e;
        }
    }

    @Override
    public InputStream get(String key) throws IOException {
        try {
            return s3.getObject(r -> r.bucket(bucket).key(full(key)));
        } catch (NoSuchKeyException e) {
            throw new NoSuchObjectException(key);
        } catch (S3Exception e) {
            throw new IOException("S3 get " + key + ": " + e.getMessage(), e);
        }
    }

    @Override
    public boolean exists(String key) throws IOException {
        try {
            s3.headObject(r -> r.bucket(bucket).key(full(key)));
            return true;
        } catch (NoSuchKeyException e) {
            return false;
        } catch (S3Exception e) {
            if (e.statusCode() == 404) {
                return false;
            }
            throw new IOException("S3 head " + key + ": " + e.getMessage(), e);
        }
    }

    @Override
    public void delete(String key) throws IOException {
        try {
            s3.deleteObject(r -> r.bucket(bucket).key(full(key)));
        } catch (S3Exception e) {
            throw new IOException("S3 delete " + key + ": " + e.getMessage(), e);
        }
    }

    @Override
    public List<String> list(String keyPrefix) throws IOException {
        try {
            List<String> keys = new ArrayList<>();
            for (S3Object o : s3.listObjectsV2Paginator(r -> r.bucket(bucket).prefix(full(keyPrefix))).contents()) {
                keys.add(o.key().substring(prefix.length()));
            }
            keys.sort(null);
            return keys;
        } catch (S3Exception e) {
            throw new IOException("S3 list " + keyPrefix + ": " + e.getMessage(), e);
        }
    }

    @Override
    public String describe() {
        return "s3://" + bucket + "/" + prefix;
    }

    @Override
    public void close() {
        s3.close();
    }

    private String full(String key) {
        return prefix + key;
    }

    /** Buffers one part at a time; the first full part starts a multipart upload. */
    private final class PartUpload extends OutputStream {
        private final String key;
        private final String contentType;
        private final byte[] buffer = new byte[PART_SIZE];
        private final List<CompletedPart> parts = new ArrayList<>();
        private int filled;
        private String uploadId;

        PartUpload(String key, String contentType) {
            this.key = key;
            this.contentType = contentType;
        }

        @Override
        public void write(int b) throws IOException {
            if (filled == buffer.length) {
                flushPart();
            }
            buffer[filled++] = (byte) b;
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            while (len > 0) {
                if (filled == buffer.length) {
                    flushPart();
                }
                int n = Math.min(len, buffer.length - filled);
                System.arraycopy(b, off, buffer, filled, n);
                filled += n;
                off += n;
                len -= n;
            }
        }

        private void flushPart() {
            if (uploadId == null) {
                uploadId = s3.createMultipartUpload(r -> r.bucket(bucket).key(key).contentType(contentType))
                        .uploadId();
            }
            int number = parts.size() + 1;
            String etag = s3.uploadPart(r -> r.bucket(bucket).key(key).uploadId(uploadId).partNumber(number),
                    RequestBody.fromBytes(java.util.Arrays.copyOf(buffer, filled))).eTag();
            parts.add(CompletedPart.builder().partNumber(number).eTag(etag).build());
            filled = 0;
        }

        void complete() {
            if (uploadId == null) {
                s3.putObject(r -> r.bucket(bucket).key(key).contentType(contentType),
                        RequestBody.fromBytes(java.util.Arrays.copyOf(buffer, filled)));
                return;
            }
            if (filled > 0) {
                flushPart();
            }
            s3.completeMultipartUpload(r -> r.bucket(bucket).key(key).uploadId(uploadId)
                    .multipartUpload(m -> m.parts(parts)));
        }

        void abort() {
            if (uploadId != null) {
                try {
                    s3.abortMultipartUpload(r -> r.bucket(bucket).key(key).uploadId(uploadId));
                } catch (RuntimeException ignored) {
                    // the bucket's lifecycle rule cleans up what an abort could not
                }
            }
        }
    }
}

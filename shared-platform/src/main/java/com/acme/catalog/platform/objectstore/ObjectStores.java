package com.acme.catalog.platform.objectstore;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Path;
import com.acme.catalog.contracts.objectstore.ObjectStore;

/**
 * Builds the store {@code OBJECT_STORE_URI} names: {@code file:DIR} (relative or absolute) or
 * {@code s3://bucket/prefix} with an optional endpoint override (then path-style addressing unless told
 * otherwise), region and credentials from the AWS default chain ({@code AWS_ACCESS_KEY_ID}, …).
 */
public final class ObjectStores {

    private ObjectStores() {
    }

    public static ObjectStore fromUri(String uri, String s3Endpoint, String region, Boolean pathStyle) {
        if (uri == null || uri.isBlank()) {
            throw new IllegalArgumentException("OBJECT_STORE_URI is empty");
        }
        try {
            if (uri.startsWith("file:")) {
                String path = uri.substring("file:".length());
                if (path.startsWith("//")) {
                    path = URI.create(uri).getPath();
                }
                return new FileSystemObjectStore(Path.of(path));
            }
            if (uri.startsWith("s3://")) {
                URI u = URI.create(uri);
                String bucket = u.getHost();
                if (bucket == null || bucket.isBlank()) {
                    throw new IllegalArgumentException("OBJECT_STORE_URI " + uri + " names no bucket");
                }
                String prefix = u.getPath() == null ? "" : u.getPath().replaceFirst("^/", "");
                URI endpoint = s3Endpoint == null || s3Endpoint.isBlank() ? null : URI.create(s3Endpoint);
                boolean path = pathStyle != null ? pathStyle : endpoint != null;
                return S3ObjectStore.create(bucket, prefix, endpoint, region, path);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot open object store " + uri, e);
        }
        throw new IllegalArgumentException("OBJECT_STORE_URI must start with file: or s3://, got " + uri);
    }
}

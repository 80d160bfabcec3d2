package com.acme.catalog.resolver.evidence;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.UUID;

import com.acme.catalog.contracts.ApiException;
import com.acme.catalog.contracts.ProblemCode;
import com.acme.catalog.contracts.UuidV7;
import com.acme.catalog.contracts.objectstore.ObjectStore;
import com.acme.catalog.platform.web.BodyLimitFilter;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.http.InvalidMediaTypeException;
import org.springframework.http.MediaType;
import org.springframework.stereotype.Service;

/**
 * Evidence intake: streams a body to its own key under the private prefix ({@code <prefix>/<tenant>/<artifactId>},
 * the store computing size and SHA-256 of exactly what it stored on the way), then records the artifact, deduped by
 * (tenant, SHA-256). Writing the object before its row means a row never names bytes that are not stored; a copy
 * that turns out to duplicate an existing artifact is deleted again. Never takes a stream's cursor lock: evidence
 * changes no exported state. A body over {@code evidence.max-bytes} is cut off while streaming and the store
 * aborts the object, so nothing is stored.
 */
@Service
class EvidenceIntake {

    private static final Logger log = LoggerFactory.getLogger(EvidenceIntake.class);
    private static final int COPY_BUFFER = 64 * 1024;

    private final ObjectStore store;
    private final ArtifactRepository artifacts;
    private final EvidenceProperties properties;
    private final EvidenceMetrics metrics;

    EvidenceIntake(ObjectStore store, ArtifactRepository artifacts, EvidenceProperties properties,
            EvidenceMetrics metrics) {
        this.store = store;
        this.artifacts = artifacts;
        this.properties = properties;
        this.metrics = metrics;
    }

    /** The artifact holding the body's bytes, and whether this intake created it. */
    record Received(Artifact artifact, boolean created) {
    }

    /**
     * @param contentType the request's {@code Content-Type} (null: {@code application/octet-stream})
     * @throws ApiException {@code INVALID_BODY} for an empty body or a malformed content type
     * @throws BodyLimitFilter.PayloadTooLargeException when the body passes the cap (nothing stored)
     */
    Received receive(String tenant, String contentType, InputStream body, String receivedBy) throws IOException {
        String type = contentType(contentType);
        UUID id = UuidV7.next();
        String key = properties.keyPrefix() + "/" + tenant + "/" + id;
        ObjectStore.StoredObject stored;
        try {
            stored = store.put(key, type, out -> copy(body, out));
        } catch (BodyLimitFilter.PayloadTooLargeException e) {
            metrics.refused();
            throw e;
        }
        if (stored.bytes() == 0) {
            store.delete(key);
            metrics.refused();
            throw new ApiException(ProblemCode.INVALID_BODY, "evidence must not be empty");
        }
        Artifact artifact;
        try {
            artifact = artifacts.record(id, tenant, stored.sha256(), stored.bytes(), type, key, receivedBy);
        } catch (RuntimeException e) {
            deleteQuietly(key);
            throw e;
        }
        boolean created = artifact.artifactId().equals(id);
        if (!created && !artifact.objectKey().equals(key)) {
            store.delete(key); // the tenant already has these bytes
        }
        metrics.received(created, stored.bytes());
        return new Received(artifact, created);
    }

    private static String contentType(String header) {
        if (header == null || header.isBlank()) {
            return MediaType.APPLICATION_OCTET_STREAM_VALUE;
        }
        if (header.length() > 255) {
            throw new ApiException(ProblemCode.INVALID_BODY, "Content-Type must be at most 255 characters");
        }
        try {
            return MediaType.parseMediaType(header).toString();
        } catch (InvalidMediaTypeException e) {
            throw new ApiException(ProblemCode.INVALID_BODY, "Content-Type '" + header + "' is not a media type");
        }
    }

    private static void copy(InputStream in, java.io.OutputStream out) throws IOException {
        byte[] buffer = new byte[COPY_BUFFER];
        for (int n; (n = in.read(buffer)) >= 0; ) {
            out.write(buffer, 0, n);
        }
    }

    private void deleteQuietly(String key) {
        try {
            store.delete(key);
        } catch (IOException | UncheckedIOException e) {
            log.warn("could not delete evidence object {} after its row failed; it is stored without a row", key, e);
        }
    }
}

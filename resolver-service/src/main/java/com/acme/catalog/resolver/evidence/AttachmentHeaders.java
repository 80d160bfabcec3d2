package com.acme.catalog.resolver.evidence;

import org.springframework.http.ContentDisposition;
import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;

/**
 * The headers an artifact's bytes are served with. Evidence is whatever a tenant uploaded (scraped HTML, scripts,
 * SVG), so it is never answered as its own type from the API's origin: the body is always
 * {@code application/octet-stream}, a download ({@code Content-Disposition: attachment}), not sniffed into
 * something renderable ({@code X-Content-Type-Options: nosniff}), and sandboxed should a browser render it anyway
 * ({@code Content-Security-Policy: sandbox}: no scripts, no same-origin access). The type it was stored with
 * travels in {@value #STORED_TYPE}, for a client that knows what it is opening.
 */
final class AttachmentHeaders {

    /** The header holding the content type the artifact was stored with. */
    static final String STORED_TYPE = "Evidence-Content-Type";

    private AttachmentHeaders() {
    }

    /** Headers for the bytes of {@code a}: an opaque attachment named after its id, its stored type on the side. */
    static HttpHeaders of(Artifact a) {
        HttpHeaders h = new HttpHeaders();
        h.setContentType(MediaType.APPLICATION_OCTET_STREAM);
        h.setContentLength(a.bytes());
        h.setContentDisposition(ContentDisposition.attachment().filename(a.artifactId().toString()).build());
        h.set("X-Content-Type-Options", "nosniff");
        h.set("Content-Security-Policy", "sandbox");
        h.set(STORED_TYPE, a.contentType());
        return h;
    }
}

package com.acme.catalog.resolver.evidence;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.UUID;

import com.acme.catalog.resolver.support.EvidenceIT;

import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * Evidence bytes are served as an opaque, sandboxed attachment whatever they were uploaded as, so an uploaded HTML
 * page is never rendered from the API's origin; the stored type travels in a header of its own, and the OpenAPI
 * document says all of it.
 */
class EvidenceAttachmentIT extends EvidenceIT {

    @Test
    void anUploadedHtmlPageComesBackAsASandboxedAttachmentWithItsTypeOnTheSide() throws Exception {
        byte[] page = "<html><script>alert(document.cookie)</script></html>".getBytes();
        Response stored = intake("attach", "w", page, "text/html; charset=utf-8");
        assertThat(stored.status()).as(stored.raw()).isEqualTo(201);
        UUID id = UUID.fromString(stored.text("artifactId"));

        HttpResponse<byte[]> content = HTTP.send(HttpRequest.newBuilder(URI.create(base()
                        + "/v1/tenants/attach/evidence/" + id + "/content")).header("Authorization", "Bearer w")
                        .header("Accept", "text/html").build(), HttpResponse.BodyHandlers.ofByteArray());

        assertThat(content.statusCode()).isEqualTo(200);
        assertThat(content.body()).isEqualTo(page);
        assertThat(content.headers().firstValue("Content-Type")).hasValue("application/octet-stream");
        assertThat(content.headers().firstValue("Content-Disposition")).hasValue(
                "attachment; filename=\"" + id + "\"");
        assertThat(content.headers().firstValue("X-Content-Type-Options")).hasValue("nosniff");
        assertThat(content.headers().firstValue("Content-Security-Policy")).hasValue("sandbox");
        assertThat(content.headers().firstValue("Evidence-Content-Type")).hasValue("text/html;charset=utf-8");
        assertThat(content.headers().firstValue("Content-Length")).hasValue(String.valueOf(page.length));
    }

    @Test
    void theDocumentDescribesTheAttachmentAndItsHeaders() {
        JsonNode doc = json.readTree(client(null).get().uri("/v3/api-docs").retrieve().body(String.class));
        JsonNode ok = doc.path("paths").path("/v1/tenants/{tenant}/evidence/{artifactId}/content").path("get")
                .path("responses").path("200");
        assertThat(ok.path("content").propertyNames()).containsExactly("application/octet-stream");
        assertThat(ok.path("headers").propertyNames()).contains("Content-Disposition", "X-Content-Type-Options",
                "Content-Security-Policy", "Evidence-Content-Type");
    }
}

package com.acme.catalog.product.resolver;

import java.net.http.HttpClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import com.acme.catalog.contracts.ChainDigestAt;
import com.acme.catalog.contracts.ProblemCode;
import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.contracts.epoch.EpochStatus;
import com.acme.catalog.contracts.export.EventPage;
import com.acme.catalog.contracts.export.ExportRequest;
import com.acme.catalog.contracts.export.ExportView;
import com.acme.catalog.contracts.retention.ConsumerRegistered;
import com.acme.catalog.contracts.retention.ConsumerRegistrationRequest;
import com.acme.catalog.contracts.retention.LeaseGranted;
import com.acme.catalog.contracts.retention.LeaseRenewal;
import com.acme.catalog.contracts.retention.LeaseRenewed;
import com.acme.catalog.contracts.retention.LeaseRequest;
import com.acme.catalog.contracts.retention.ProgressRecorded;
import com.acme.catalog.contracts.retention.ProgressRequest;
import com.acme.catalog.contracts.retention.RetentionView;
import com.acme.catalog.contracts.retention.SubscriptionRegistered;
import com.acme.catalog.contracts.stream.StreamPage;
import com.acme.catalog.contracts.stream.StreamSummary;

import org.springframework.http.HttpStatusCode;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.http.client.JdkClientHttpRequestFactory;
import org.springframework.stereotype.Component;
import org.springframework.web.client.RestClient;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.ObjectMapper;

/**
 * Every call the product makes to the resolver, with bearer {@code RESOLVER_TOKEN}. Answers are read into the
 * contract's records of {@code shared-contracts}; members this product does not know are skipped (the resolver may
 * add some), an answer its record refuses is an {@link IllegalStateException} naming the call.
 *
 * <p>Rebuild and recovery calls (retention status, epoch, leases, exports, catch-up pages, chain digest, consumer
 * registration, progress after a cutover) time out after {@code product.rebuild.request-timeout}; a 410 becomes
 * {@link GoneException} (restart from a new export), a 5xx an {@link UnavailableException}, another 4xx a
 * {@link RefusedException}, any other non-2xx answer an {@link IllegalStateException}, each naming the call and the
 * problem. The progress reporter's {@link #reportProgress} has its own timeout
 * ({@code product.progress.request-timeout}), speaks HTTP/1.1 and throws Spring's
 * {@link org.springframework.web.client.RestClientResponseException} on a non-2xx answer: its caller retries any
 * failure alike. None of the calls retries by itself.
 */
@Component
public class ResolverClient {

    /** The resolver answered 410: the lease or the cursor is gone, or the epoch changed. */
    public static final class GoneException extends RuntimeException {
        private final ProblemCode code;

        public GoneException(String message) {
            this(message, null);
        }

        public GoneException(String message, ProblemCode code) {
            super(message);
            this.code = code;
        }

        /** @return the answer's problem code; empty when it had none the contract knows */
        public Optional<ProblemCode> code() {
            return Optional.ofNullable(code);
        }
    }

    /** The resolver answered 5xx: unavailable for now (restarting, its database cut, a fault); nothing decided. */
    public static final class UnavailableException extends IllegalStateException {
        public UnavailableException(String message) {
            super(message);
        }
    }

    /**
     * The resolver refused a call with a 4xx other than 410 (and other than the 422 {@code POSITION_AHEAD} a chain
     * digest read answers as {@link AheadOfSourceException}): a refusal, which retrying does not change.
     */
    public static final class RefusedException extends IllegalStateException {
        private final int status;
        private final ProblemCode code;

        public RefusedException(String message, int status) {
            this(message, status, null);
        }

        public RefusedException(String message, int status, ProblemCode code) {
            super(message);
            this.status = status;
            this.code = code;
        }

        /** @return the HTTP status the resolver answered */
        public int status() {
            return status;
        }

        /** @return the answer's problem code; empty when it had none the contract knows */
        public Optional<ProblemCode> code() {
            return Optional.ofNullable(code);
        }
    }

    /**
     * How the resolver refused a call that answers its refusal rather than throwing it ({@link #reportAhead}).
     *
     * @param status the HTTP status
     * @param code   the problem code, null when the answer had none the contract knows
     */
    public record Refusal(int status, ProblemCode code) {
        /** @return whether the resolver refused with {@code expected} */
        public boolean is(ProblemCode expected) {
            return code == expected;
        }

        @Override
        public String toString() {
            return code == null ? "HTTP " + status : code.name();
        }
    }

    /** The resolver answered 422 {@code POSITION_AHEAD}: the position asked about is beyond its committed head. */
    public static final class AheadOfSourceException extends RuntimeException {
        AheadOfSourceException(String message) {
            super(message);
        }
    }

    private static final String PROGRESS_PATH = "/v1/retention/consumers/{id}/progress";

    /** Rebuild and recovery calls: errors answered as entities, mapped by {@link #check}. */
    private final RestClient rest;
    /** Progress reports: HTTP/1.1, Spring's default error handling. */
    private final RestClient progressRest;
    /** The application's mapper, tolerant of members the records do not have, as {@code StrictJson}'s binder is. */
    private final ObjectMapper json;
    private final String consumerId;
    private final String deliveryUrl;

    public ResolverClient(ResolverClientProperties properties, ObjectMapper json) {
        Duration timeout = properties.rebuild().requestTimeout();
        JdkClientHttpRequestFactory factory = new JdkClientHttpRequestFactory(
                HttpClient.newBuilder().connectTimeout(timeout).build());
        factory.setReadTimeout(timeout);
        this.rest = authorized(RestClient.builder().baseUrl(properties.resolverUrl()).requestFactory(factory)
                .defaultStatusHandler(HttpStatusCode::isError, (req, res) -> { }), properties.resolverToken());

        Duration progressTimeout = properties.progress().requestTimeout();
        // HTTP/1.1: the default would offer an h2c upgrade on every new connection to the plain-http resolver
        JdkClientHttpRequestFactory progressFactory = new JdkClientHttpRequestFactory(HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1).connectTimeout(progressTimeout).build());
        progressFactory.setReadTimeout(progressTimeout);
        this.progressRest = authorized(RestClient.builder().baseUrl(properties.resolverUrl())
                .requestFactory(progressFactory), properties.resolverToken());

        this.json = json.rebuild().disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES).build();
        this.consumerId = properties.consumerId();
        this.deliveryUrl = properties.deliveryUrl();
    }

    private static RestClient authorized(RestClient.Builder b, String token) {
        if (!token.isBlank()) {
            b.defaultHeader("Authorization", "Bearer " + token);
        }
        return b.build();
    }

    /** @return the stream's current epoch as the resolver's retention status shows it */
    public long epoch(StreamId s) {
        return status(s).epoch();
    }

    /**
     * {@link #status}, or empty when the resolver holds nothing of the stream yet (404: no write so far).
     */
    public Optional<RetentionView> statusIfKnown(StreamId s) {
        ResponseEntity<String> r = rest.get().uri("/v1/retention/streams/{t}/{c}", s.tenant(), s.catalog())
                .retrieve().toEntity(String.class);
        return r.getStatusCode().value() == 404 ? Optional.empty()
                : Optional.of(read("retention status", r, RetentionView.class));
    }

    /**
     * Subscribes this product to every stream of {@code tenantPattern} (a tenant, or {@code *}): the resolver
     * registers it at position 0 of each matching stream, existing and future, delivered to its URL.
     */
    public void subscribe(String tenantPattern) {
        read("subscription", post("/v1/retention/consumers", new ConsumerRegistrationRequest(consumerId,
                tenantPattern, ConsumerRegistrationRequest.ANY, null, deliveryUrl)), SubscriptionRegistered.class);
    }

    /**
     * Every stream the product's token may read (of {@code tenant} only, unless null), with its epochs, cursor, digest
     * and pruned-through: {@code ceil(streams / pageSize)} requests, in (tenant, catalog) order.
     */
    public List<StreamSummary> listStreams(String tenant, int pageSize) {
        return listStreams(tenant, pageSize, false);
    }

    /**
     * The same, or only the streams whose history the resolver reports rolled back ({@code rolledBack=true}: usually
     * none, an empty page).
     */
    public List<StreamSummary> listStreams(String tenant, int pageSize, boolean rolledBackOnly) {
        List<StreamSummary> out = new ArrayList<>();
        String after = null;
        do {
            String from = after;
            StreamPage page = read("stream listing", rest.get().uri(u -> {
                u.path("/v1/streams").queryParam("limit", pageSize);
                if (rolledBackOnly) {
                    u.queryParam("rolledBack", true);
                }
                if (tenant != null) {
                    u.queryParam("tenant", tenant);
                }
                if (from != null) {
                    u.queryParam("after", from);
                }
                return u.build();
            }).retrieve().toEntity(String.class), StreamPage.class);
            out.addAll(page.streams());
            after = page.next();
        } while (after != null);
        return out;
    }

    /** @return the retention status of the stream's open epoch: its epoch and committed cursor among others */
    public RetentionView status(StreamId s) {
        return read("retention status", rest.get().uri("/v1/retention/streams/{t}/{c}", s.tenant(), s.catalog())
                .retrieve().toEntity(String.class), RetentionView.class);
    }

    /**
     * The stream's current epoch as the resolver's epoch API reads it from the control store
     * ({@code GET /v1/epochs/{t}/{c}}; 1 for a stream nobody wrote).
     */
    public long currentEpoch(StreamId s) {
        return epochStatus(s).epoch();
    }

    /**
     * The stream's epochs as the resolver's epoch API reads them from the control store ({@code GET
     * /v1/epochs/{t}/{c}}): the current one and every one issued, each with where it starts from.
     */
    public EpochStatus epochStatus(StreamId s) {
        return read("current epoch", rest.get().uri("/v1/epochs/{t}/{c}", s.tenant(), s.catalog()).retrieve()
                .toEntity(String.class), EpochStatus.class);
    }

    /** @return the new lease's id */
    public String createLease(StreamId s, long epoch, long ttlSeconds, String owner) {
        LeaseRequest request = new LeaseRequest(s.tenant(), s.catalog(), epoch, ttlSeconds, owner);
        return read("lease", post("/v1/retention/leases", request), LeaseGranted.class).leaseId().toString();
    }

    public void renewLease(String leaseId, long ttlSeconds) {
        read("lease renewal", post("/v1/retention/leases/" + leaseId + "/renew", new LeaseRenewal(ttlSeconds)),
                LeaseRenewed.class);
    }

    /** Releases the lease; one already released or expired (410, 404) counts as released. */
    public void releaseLease(String leaseId) {
        ResponseEntity<String> r = rest.delete().uri("/v1/retention/leases/{id}", leaseId).retrieve()
                .toEntity(String.class);
        if (r.getStatusCode().isError() && r.getStatusCode().value() != 410 && r.getStatusCode().value() != 404) {
            check("lease release", r);
        }
    }

    /** @return the new export's id */
    public String requestExport(StreamId s, String leaseId) {
        ExportRequest request = new ExportRequest(s.tenant(), s.catalog(), leaseId);
        return read("export", post("/v1/exports", request), ExportView.class).exportId().toString();
    }

    /** @return where the export stands ({@code manifestKey} once READY, {@code error} once ended) */
    public ExportView exportStatus(String exportId) {
        return read("export status", rest.get().uri("/v1/exports/{id}", exportId).retrieve()
                .toEntity(String.class), ExportView.class);
    }

    /** @return the page of retained events after {@code after}, not yet verified */
    public EventPage events(StreamId s, long after, String leaseId, long epoch, int limit) {
        ResponseEntity<String> r = rest.get().uri(u -> u.path("/v1/exports/events").queryParam("tenant", s.tenant())
                .queryParam("catalog", s.catalog()).queryParam("after", after).queryParam("lease_id", leaseId)
                .queryParam("history_epoch", epoch).queryParam("limit", limit).build()).retrieve()
                .toEntity(String.class);
        check("catch-up page after " + after, r);
        return EventPage.parse(r.getBody());
    }

    /**
     * The resolver's chain digest at {@code position} of {@code epoch} (and its head).
     *
     * @throws GoneException on a 410: the digest there is pruned, or the epoch is not the open one
     * @throws AheadOfSourceException when the resolver has not committed {@code position}
     */
    public ChainDigestAt chainDigest(StreamId s, long epoch, long position) {
        return chainDigest(s, epoch, position, getChainDigest(s, epoch, position));
    }

    /**
     * {@link #chainDigest}, or empty when the resolver holds no such stream (404): how a first delivery of a stream
     * is confirmed before the stream is opened.
     */
    public Optional<ChainDigestAt> chainDigestIfKnown(StreamId s, long epoch, long position) {
        ResponseEntity<String> r = getChainDigest(s, epoch, position);
        if (r.getStatusCode().value() == 404) {
            return Optional.empty();
        }
        return Optional.of(chainDigest(s, epoch, position, r));
    }

    private ResponseEntity<String> getChainDigest(StreamId s, long epoch, long position) {
        return rest.get().uri(u -> u.path("/v1/streams/{t}/{c}/chain-digest")
                .queryParam("position", position).queryParam("epoch", epoch).build(s.tenant(), s.catalog()))
                .retrieve().toEntity(String.class);
    }

    private ChainDigestAt chainDigest(StreamId s, long epoch, long position, ResponseEntity<String> r) {
        if (r.getStatusCode().value() == 422 && problemCode(r) == ProblemCode.POSITION_AHEAD) {
            throw new AheadOfSourceException("the resolver has not committed position " + position + " of " + s
                    + " epoch " + epoch + ": " + r.getBody());
        }
        return read("chain digest at " + position, r, ChainDigestAt.class);
    }

    /** Registers (or moves) this product as the stream's consumer in {@code epoch}, delivered to its URL. */
    public void registerConsumer(StreamId s, long epoch) {
        read("consumer registration", post("/v1/retention/consumers",
                new ConsumerRegistrationRequest(consumerId, s.tenant(), s.catalog(), epoch, deliveryUrl)),
                ConsumerRegistered.class);
    }

    /** Reports {@code position} of {@code epoch} as the consumer's progress, errors mapped as the rebuild's. */
    public void progress(StreamId s, long epoch, long position) {
        read("progress", rest.put().uri(PROGRESS_PATH, consumerId).contentType(MediaType.APPLICATION_JSON)
                .body(progressBody(s, epoch, position)).retrieve().toEntity(String.class), ProgressRecorded.class);
    }

    /**
     * Reports durable progress for the progress reporter; throws on any failure, including a non-2xx answer.
     */
    public void reportProgress(StreamId s, long epoch, long position) {
        progressRest.put().uri(PROGRESS_PATH, consumerId).contentType(MediaType.APPLICATION_JSON)
                .body(progressBody(s, epoch, position)).retrieve().toBodilessEntity();
    }

    /**
     * Reports {@code position} of {@code epoch} as the consumer's progress and tells what the resolver answered: the
     * recovery worker sends it when the product holds a position ahead of the resolver's cursor, the rollback signal
     * the resolver turns into {@code HISTORY_ROLLED_BACK} (docs/epochs.md).
     *
     * @return the refusal (e.g. {@code HISTORY_ROLLED_BACK}), empty when it was accepted
     */
    public Optional<Refusal> reportAhead(StreamId s, long epoch, long position) {
        ResponseEntity<String> r = rest.put().uri(PROGRESS_PATH, consumerId).contentType(MediaType.APPLICATION_JSON)
                .body(progressBody(s, epoch, position)).retrieve().toEntity(String.class);
        if (!r.getStatusCode().isError()) {
            return Optional.empty();
        }
        return Optional.of(new Refusal(r.getStatusCode().value(), problemCode(r)));
    }

    private ResponseEntity<String> post(String path, Object body) {
        return rest.post().uri(path).contentType(MediaType.APPLICATION_JSON).body(body).retrieve()
                .toEntity(String.class);
    }

    /** Maps a non-2xx answer as the class comment says; a 2xx answer passes. */
    private void check(String call, ResponseEntity<String> r) {
        int status = r.getStatusCode().value();
        if (status == 410) {
            throw new GoneException(call + ": 410 " + r.getBody(), problemCode(r));
        }
        if (status >= 500) {
            throw new UnavailableException(call + " answered " + status + ": " + r.getBody());
        }
        if (status >= 400) {
            throw new RefusedException(call + " answered " + status + ": " + r.getBody(), status, problemCode(r));
        }
        if (status >= 300) {
            throw new IllegalStateException(call + " answered " + status + ": " + r.getBody());
        }
    }

    /** {@link #check}, then the answer as its contract record; @return never null */
    private <T> T read(String call, ResponseEntity<String> r, Class<T> type) {
        check(call, r);
        String body = r.getBody();
        if (body == null || body.isBlank()) {
            throw new IllegalStateException(call + " answered " + r.getStatusCode().value() + " without a body");
        }
        try {
            return json.readValue(body, type);
        } catch (JacksonException e) {
            throw new IllegalStateException(call + " answered what this product cannot read as "
                    + type.getSimpleName() + " (" + e.getOriginalMessage() + "): " + body, e);
        }
    }

    /**
     * @return the {@code code} member of an error answer's problem+json body as the contract's type; null when the
     *         body is not JSON, has no code, or one this product's contract does not know (a newer resolver's)
     */
    private ProblemCode problemCode(ResponseEntity<String> r) {
        String body = r.getBody();
        if (body == null || body.isBlank()) {
            return null;
        }
        String code;
        try {
            code = json.readTree(body).path("code").asString();
        } catch (JacksonException e) {
            return null;
        }
        for (ProblemCode c : ProblemCode.values()) {
            if (c.name().equals(code)) {
                return c;
            }
        }
        return null;
    }

    private static ProgressRequest progressBody(StreamId s, long epoch, long position) {
        return new ProgressRequest(s.tenant(), s.catalog(), epoch, position);
    }
}

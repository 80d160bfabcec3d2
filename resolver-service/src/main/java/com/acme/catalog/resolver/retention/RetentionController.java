package com.acme.catalog.resolver.retention;

import java.time.Duration;
import java.util.List;
import java.util.UUID;

import com.acme.catalog.contracts.ApiException;
import com.acme.catalog.contracts.ProblemCode;
import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.contracts.retention.ConsumerRegistered;
import com.acme.catalog.contracts.retention.ConsumerRegistrationRequest;
import com.acme.catalog.contracts.retention.LeaseGranted;
import com.acme.catalog.contracts.retention.LeaseRenewed;
import com.acme.catalog.contracts.retention.LeaseRequest;
import com.acme.catalog.contracts.retention.ProgressRecorded;
import com.acme.catalog.contracts.retention.ProgressRequest;
import com.acme.catalog.contracts.retention.PruneRequest;
import com.acme.catalog.contracts.retention.PruneResult;
import com.acme.catalog.contracts.retention.RetentionView;
import com.acme.catalog.contracts.retention.SubscriptionRegistered;
import com.acme.catalog.platform.web.Access;
import com.acme.catalog.platform.web.Caller;
import com.acme.catalog.platform.web.Role;
import com.acme.catalog.resolver.outbox.DeliveryUrlAllowlist;
import com.acme.catalog.resolver.retention.ConsumerRepository.ConsumerRegistration;
import com.acme.catalog.resolver.retention.LeaseRepository.LeaseRow;
import com.acme.catalog.resolver.retention.OutboxPruner.PruneOutcome;

import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import io.swagger.v3.oas.annotations.tags.Tag;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.PutMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import tools.jackson.databind.JsonNode;

/**
 * The contract's retention endpoints (docs/retention.md). Role {@code operator}, or {@code consumer} for consumers and
 * leases its own token registered or created; tenant-limited tokens only reach their tenants. Deregistration and prune:
 * operator only.
 */
@Tag(name = "Retention", description = "Consumers, leases and outbox pruning")
@RestController
@RequestMapping("/v1/retention")
class RetentionController {

    private final RetentionService service;
    private final ConsumerRegistry registry;
    private final RetentionStatusReader statusReader;
    private final OutboxPruner pruner;
    private final DeliveryUrlAllowlist deliveryUrls;
    private final Subscriptions subscriptions;

    RetentionController(RetentionService service, ConsumerRegistry registry, RetentionStatusReader statusReader,
            OutboxPruner pruner, DeliveryUrlAllowlist deliveryUrls, Subscriptions subscriptions) {
        this.subscriptions = subscriptions;
        this.service = service;
        this.deliveryUrls = deliveryUrls;
        this.registry = registry;
        this.statusReader = statusReader;
        this.pruner = pruner;
    }

    @Operation(operationId = "registerConsumer", summary = "Register a consumer",
            description = "At durable position 0 of the stream; catalog * (and tenant *, operator only) subscribes to "
                    + "every matching stream, existing and future.")
    @ApiResponse(responseCode = "201", description = "Registered")
    @PostMapping("/consumers")
    ResponseEntity<?> register(@RequestBody JsonNode body) {
        Access.require(Role.OPERATOR, Role.CONSUMER);
        ConsumerRegistrationRequest r = RetentionRequests.registration(body);
        if (r.subscription()) {
            return subscribe(r);
        }
        Caller caller = Access.require(r.stream().tenant(), Role.OPERATOR, Role.CONSUMER);
        deliveryUrls.require(r.deliveryUrl()); // before anything is registered: the relay sends its token there
        ConsumerRegistration reg = registry.register(r.consumerId(), r.stream(), r.epoch(), r.deliveryUrl(), caller);
        return ResponseEntity.status(HttpStatus.CREATED).body(new ConsumerRegistered(reg.consumerId(),
                reg.durablePosition(), reg.stream().tenant(), reg.stream().catalog(), reg.epoch(), reg.deliveryUrl(),
                reg.registeredAt()));
    }

    /** A subscription: {@code tenant/*} for a token of that tenant, {@code *} only for a token of every tenant. */
    private ResponseEntity<SubscriptionRegistered> subscribe(ConsumerRegistrationRequest r) {
        Caller caller = ConsumerRegistrationRequest.ANY.equals(r.tenant())
                ? Access.require(Role.OPERATOR, Role.CONSUMER)
                : Access.require(r.tenant(), Role.OPERATOR, Role.CONSUMER);
        if (!caller.mayAccess(r.tenant())) {
            throw new ApiException(ProblemCode.FORBIDDEN, "a subscription to every tenant needs a token that is not "
                    + "limited to some tenants; subscribe to each tenant's streams (\"catalog\":\"*\") instead");
        }
        deliveryUrls.require(r.deliveryUrl());
        int streams = subscriptions.subscribe(r.consumerId(), r.tenant(), r.deliveryUrl(), caller);
        return ResponseEntity.status(HttpStatus.CREATED).body(new SubscriptionRegistered(r.consumerId(), 0,
                r.tenant(), r.catalog(), r.deliveryUrl(), streams));
    }

    @Operation(operationId = "reportProgress", summary = "Report a consumer's progress",
            description = "A lower position leaves the durable position unchanged; one ahead of the cursor is a "
                    + "rollback signal.")
    @PutMapping("/consumers/{consumerId}/progress")
    ProgressRecorded progress(@PathVariable String consumerId, @RequestBody JsonNode body) {
        Access.require(Role.OPERATOR, Role.CONSUMER);
        String id = RetentionRequests.consumerId(consumerId);
        ProgressRequest p = RetentionRequests.progress(body);
        Caller caller = Access.require(p.stream().tenant(), Role.OPERATOR, Role.CONSUMER);
        return new ProgressRecorded(registry.reportProgress(id, p.stream(), p.epoch(), p.position(), caller));
    }

    @Operation(operationId = "deregisterConsumer", summary = "Deregister a consumer",
            description = "Operator only; tenant and catalog (optional) limit it to one stream.")
    @ApiResponse(responseCode = "204", description = "Deregistered")
    @DeleteMapping("/consumers/{consumerId}")
    ResponseEntity<Void> deregister(@PathVariable String consumerId,
            @RequestParam(required = false) String tenant, @RequestParam(required = false) String catalog) {
        Caller caller = Access.require(Role.OPERATOR);
        String id = RetentionRequests.consumerId(consumerId);
        RetentionRequests.filter(tenant, catalog);
        if (tenant != null) {
            Access.require(tenant, Role.OPERATOR);
        }
        registry.deregister(id, tenant, catalog, caller);
        return ResponseEntity.noContent().build();
    }

    @Operation(operationId = "createLease", summary = "Take a retention lease",
            description = "Pins the outbox at the stream's current position for ttlSeconds.")
    @ApiResponse(responseCode = "201", description = "Granted")
    @PostMapping("/leases")
    ResponseEntity<LeaseGranted> createLease(@RequestBody JsonNode body) {
        Access.require(Role.OPERATOR, Role.CONSUMER);
        LeaseRequest r = RetentionRequests.newLease(body);
        Caller caller = Access.require(r.stream().tenant(), Role.OPERATOR, Role.CONSUMER);
        Lease lease = service.pinRetention(r.stream(), r.epoch(), r.ttl(), r.owner(), caller.name());
        return ResponseEntity.status(HttpStatus.CREATED).body(new LeaseGranted(lease.leaseId(), lease.pin(),
                lease.expiresAt(), lease.stream().tenant(), lease.stream().catalog(), lease.epoch(), lease.owner()));
    }

    @Operation(operationId = "renewLease", summary = "Renew a lease",
            description = "410 LEASE_EXPIRED once it expired or was released.")
    @PostMapping("/leases/{leaseId}/renew")
    LeaseRenewed renew(@PathVariable String leaseId, @RequestBody JsonNode body) {
        Caller caller = Access.require(Role.OPERATOR, Role.CONSUMER);
        UUID id = RetentionRequests.leaseId(leaseId);
        Duration ttl = RetentionRequests.ttl(body);
        requireLeaseAccess(caller, service.find(id));
        return new LeaseRenewed(service.renew(id, ttl));
    }

    @Operation(operationId = "releaseLease", summary = "Release a lease")
    @ApiResponse(responseCode = "204", description = "Released")
    @DeleteMapping("/leases/{leaseId}")
    ResponseEntity<Void> release(@PathVariable String leaseId) {
        Caller caller = Access.require(Role.OPERATOR, Role.CONSUMER);
        UUID id = RetentionRequests.leaseId(leaseId);
        requireLeaseAccess(caller, service.find(id));
        service.release(id);
        return ResponseEntity.noContent().build();
    }

    @Operation(operationId = "retentionStatus", summary = "Read a stream's retention",
            description = "What is retained and what blocks pruning: consumers, leases, unpublished events, gaps.")
    @GetMapping("/streams/{tenant}/{catalog}")
    RetentionView status(@PathVariable String tenant, @PathVariable String catalog,
            @RequestParam(required = false) String epoch) {
        Access.require(Role.OPERATOR, Role.CONSUMER);
        StreamId s = new StreamId(tenant, catalog);
        Long e = RetentionRequests.optionalEpoch(epoch);
        Caller caller = Access.require(tenant, Role.OPERATOR, Role.CONSUMER);
        RetentionStatus st = statusReader.read(s, e);
        return RetentionJson.status(caller.has(Role.OPERATOR) ? st : st.seenBy(caller.name()));
    }

    @Operation(operationId = "prune", summary = "Prune outboxes",
            description = "Prunes every stream, a tenant's or one stream up to what retention allows. Operator only.")
    @PostMapping("/prune")
    PruneResult prune(@RequestBody(required = false) JsonNode body) {
        Caller caller = Access.require(Role.OPERATOR);
        PruneRequest filter = RetentionRequests.prune(body);
        String tenant = filter.tenant();
        String catalog = filter.catalog();
        if (tenant != null) {
            Access.require(tenant, Role.OPERATOR);
        } else if (!caller.tenants().isEmpty()) {
            throw new ApiException(ProblemCode.FORBIDDEN, "a tenant-limited token must name its tenant");
        }
        if (tenant != null && catalog != null) {
            StreamId s = new StreamId(tenant, catalog);
            statusReader.read(s, null); // 404 for a stream retention knows nothing about
            List<PruneOutcome> outcomes = pruner.pruneAll(tenant, catalog);
            return RetentionJson.pruneResult(outcomes, statusReader.read(s, null));
        }
        return RetentionJson.pruneSummary(pruner.pruneAll(tenant, catalog), this::statusReaderOrNull);
    }

    private RetentionStatus statusReaderOrNull(StreamId s) {
        try {
            return statusReader.read(s, null);
        } catch (ApiException e) {
            if (e.code() == ProblemCode.NOT_FOUND || e.code() == ProblemCode.STREAM_FENCED) {
                return null;
            }
            throw e;
        }
    }

    private static void requireLeaseAccess(Caller caller, LeaseRow lease) {
        Access.require(lease.stream().tenant(), Role.OPERATOR, Role.CONSUMER);
        RetentionService.requireLeaseUser(lease, caller);
    }
}

package com.acme.catalog.resolver.stream;

import java.util.List;
import java.util.Map;

import com.acme.catalog.contracts.ApiException;
import com.acme.catalog.contracts.ProblemCode;
import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.contracts.stream.StreamPage;
import com.acme.catalog.contracts.stream.StreamSummary;
import com.acme.catalog.platform.web.Access;
import com.acme.catalog.platform.web.Caller;
import com.acme.catalog.platform.web.Role;

import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.tags.Tag;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code GET /v1/streams?tenant=&after=&limit=&rolledBack=} (role {@code operator} or {@code consumer}, tenant-scoped
 * like every read): the open streams with their epoch, cursor, digest, pruned-through, rollback mark and the control
 * store's current epoch (two statements a page, one per database), {@value #DEFAULT_LIMIT} a page
 * unless {@code limit} (1..{@value #MAX_LIMIT}) says otherwise. A tenant-limited token sees only its tenants.
 * {@code rolledBack=true} lists only the streams whose history is marked rolled back: usually none, so a reader can
 * ask every second or two what a full listing tells it every few seconds.
 */
@Tag(name = "Streams")
@RestController
class StreamListController {

    static final int DEFAULT_LIMIT = 500;
    static final int MAX_LIMIT = 5000;

    private final StreamDirectory directory;
    private final ControlEpochs controlEpochs;

    StreamListController(StreamDirectory directory, ControlEpochs controlEpochs) {
        this.directory = directory;
        this.controlEpochs = controlEpochs;
    }

    @Operation(operationId = "listStreams", summary = "List streams",
            description = "Ordered by tenant and catalog, paged after the tenant/catalog in after; rolledBack=true "
                    + "lists only streams whose history is marked rolled back. Operator, or consumer for its "
                    + "tenants.")
    @GetMapping("/v1/streams")
    StreamPage list(@RequestParam(required = false) String tenant, @RequestParam(required = false) String after,
            @RequestParam(required = false) String limit, @RequestParam(required = false) String rolledBack) {
        Caller caller = tenant == null ? Access.require(Role.OPERATOR, Role.CONSUMER)
                : Access.require(requireTenant(tenant), Role.OPERATOR, Role.CONSUMER);
        StreamId from = after == null || after.isEmpty() ? null : parseAfter(after);
        int n = limit(limit);
        List<StreamSummary> read = directory.page(tenant, from, caller.tenants(), rolledBackOnly(rolledBack), n + 1);
        List<StreamSummary> page = withControlEpochs(read.size() <= n ? read : read.subList(0, n));
        if (read.size() <= n) {
            return new StreamPage(page, null);
        }
        StreamSummary last = page.get(n - 1);
        return new StreamPage(page, last.tenant() + "/" + last.catalog());
    }

    /** One control-store read for the page; without it the page still answers, without {@code currentEpoch}. */
    private List<StreamSummary> withControlEpochs(List<StreamSummary> page) {
        Map<StreamId, Long> current = controlEpochs.currentEpochs(
                page.stream().map(s -> new StreamId(s.tenant(), s.catalog())).toList());
        return page.stream().map(s -> s.withCurrentEpoch(current.get(new StreamId(s.tenant(), s.catalog()))))
                .toList();
    }

    private static String requireTenant(String tenant) {
        StreamId.requirePart("tenant", tenant);
        return tenant;
    }

    private static StreamId parseAfter(String after) {
        int slash = after.indexOf('/');
        if (slash < 0) {
            throw new ApiException(ProblemCode.INVALID_BODY, "after must be tenant/catalog, not '" + after + "'");
        }
        return new StreamId(after.substring(0, slash), after.substring(slash + 1));
    }

    private static boolean rolledBackOnly(String rolledBack) {
        if (rolledBack == null || rolledBack.equals("false")) {
            return false;
        }
        if (rolledBack.equals("true")) {
            return true;
        }
        throw new ApiException(ProblemCode.INVALID_BODY, "rolledBack must be true or false, not '" + rolledBack + "'");
    }

    private static int limit(String limit) {
        if (limit == null) {
            return DEFAULT_LIMIT;
        }
        try {
            int n = Integer.parseInt(limit);
            if (n >= 1 && n <= MAX_LIMIT) {
                return n;
            }
        } catch (NumberFormatException e) {
            // answered below
        }
        throw new ApiException(ProblemCode.INVALID_BODY, "limit must be an integer from 1 to " + MAX_LIMIT + ", not '"
                + limit + "'");
    }
}

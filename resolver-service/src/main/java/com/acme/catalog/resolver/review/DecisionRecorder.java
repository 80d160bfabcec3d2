package com.acme.catalog.resolver.review;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;

import com.acme.catalog.contracts.ApiException;
import com.acme.catalog.contracts.ProblemCode;
import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.contracts.UuidV7;
import com.acme.catalog.contracts.review.DecisionReceipt;
import com.acme.catalog.contracts.review.DecisionRequest;
import com.acme.catalog.contracts.review.Verdict;
import com.acme.catalog.resolver.evidence.ArtifactReferences;
import com.acme.catalog.resolver.stream.Change;
import com.acme.catalog.resolver.stream.ChangeParser;
import com.acme.catalog.resolver.stream.StreamWriter;
import com.acme.catalog.resolver.stream.WriteResult;

import org.springframework.stereotype.Service;
import org.springframework.transaction.support.TransactionTemplate;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * Records the one decision of a review case, all or nothing, in one transaction:
 * <ol>
 *   <li>lock the case row (deciders of one case are serialized) and refuse a decided case ({@code CASE_DECIDED});
 *   <li>share-lock every artifact the decision cites (its claims' and the reviewer's further evidence), so evidence
 *       retention cannot expire them before this commits;
 *   <li>an ACCEPT writes its logical transaction through the live write path, joining this transaction: the cursor
 *       lock, a {@code DecisionRecorded} event, then the case's changes, each with its revision and event (a
 *       revision conflict or any other refusal rolls everything back, the decision included);
 *   <li>insert the decision (with the epoch and positions the write path gave it), its citations and, for an
 *       ACCEPT, one row per revision it made citing it; commit.
 * </ol>
 * A REJECT takes no cursor lock and writes nothing to accepted state.
 */
@Service
class DecisionRecorder {

    private final TransactionTemplate tx;
    private final ReviewCaseRepository cases;
    private final DecisionRepository decisions;
    private final ArtifactReferences references;
    private final StreamWriter writer;
    private final ObjectMapper json;

    DecisionRecorder(TransactionTemplate tx, ReviewCaseRepository cases, DecisionRepository decisions,
            ArtifactReferences references, StreamWriter writer, ObjectMapper json) {
        this.tx = tx;
        this.cases = cases;
        this.decisions = decisions;
        this.references = references;
        this.writer = writer;
        this.json = json;
    }

    DecisionReceipt decide(StreamId stream, UUID caseId, DecisionRequest request, String decidedBy) {
        UUID decisionId = UuidV7.next();
        return tx.execute(status -> {
            if (!cases.lock(stream, caseId)) {
                throw new ApiException(ProblemCode.NOT_FOUND, "stream " + stream + " has no review case " + caseId);
            }
            if (cases.decided(caseId)) {
                throw new ApiException(ProblemCode.CASE_DECIDED, "review case " + caseId + " is already decided");
            }
            ReviewCase c = cases.find(stream, caseId).orElseThrow();
            Set<UUID> cited = new TreeSet<>(references.artifactsOfClaims(stream, c.claimIds()).values());
            cited.addAll(request.evidence());
            references.lock(stream.tenant(), cited);
            WriteResult applied = request.decision() == Verdict.ACCEPT
                    ? writer.write(stream, changes(decisionId, c, request, cited))
                    : null;
            decisions.insert(decisionId, caseId, stream, request, applied, decidedBy);
            decisions.citeArtifacts(decisionId, cited);
            if (applied != null) {
                decisions.citeRevisions(decisionId, stream, applied);
                return new DecisionReceipt(decisionId, request.decision(), applied.epoch(), applied.firstPosition(),
                        applied.lastPosition());
            }
            return new DecisionReceipt(decisionId, request.decision(), null, null, null);
        });
    }

    /** The decision's event first, then the case's changes, as one logical transaction. */
    private List<Change> changes(UUID decisionId, ReviewCase c, DecisionRequest request, Set<UUID> cited) {
        ObjectNode payload = json.createObjectNode();
        payload.put("decisionId", decisionId.toString());
        payload.put("caseId", c.caseId().toString());
        payload.put("decision", request.decision().name());
        payload.put("reviewer", request.reviewer());
        payload.put("reason", request.reason());
        var claims = payload.putArray("claimIds");
        c.claimIds().forEach(id -> claims.add(id.toString()));
        var artifacts = payload.putArray("artifactIds");
        cited.forEach(a -> artifacts.add(a.toString()));
        ObjectNode transaction = json.createObjectNode();
        transaction.set("changes", json.readTree(c.changesJson()));
        List<Change> out = new ArrayList<>();
        out.add(new Change.RecordDecision(decisionId.toString(), payload));
        out.addAll(ChangeParser.transaction(transaction));
        return out;
    }
}

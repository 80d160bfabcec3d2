package com.acme.catalog.resolver.evidence;

import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

import com.acme.catalog.contracts.ApiException;
import com.acme.catalog.contracts.ProblemCode;
import com.acme.catalog.contracts.StreamId;

import org.springframework.stereotype.Component;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * How another capability takes a new reference to evidence (a review case over claims, a decision citing
 * artifacts) without racing evidence retention: inside the caller's transaction, {@link #lock} share-locks the
 * artifacts until it commits. The retention job locks an artifact FOR UPDATE and re-checks its references before
 * it expires it, so it either waits for the reference and keeps the artifact, or expired it first and the
 * reference is refused ({@code EVIDENCE_EXPIRED}).
 */
@Component
public class ArtifactReferences {

    private final ArtifactRepository artifacts;
    private final ClaimRepository claims;

    ArtifactReferences(ArtifactRepository artifacts, ClaimRepository claims) {
        this.artifacts = artifacts;
        this.claims = claims;
    }

    /**
     * The artifact behind each of the stream's claims (no lock taken; pass the artifacts to {@link #lock}).
     *
     * @return claim id to artifact id, for every claim named
     * @throws ApiException {@code NOT_FOUND} when a claim is not one of the stream's (unknown, another stream's, or
     *                      deleted with its expired artifact)
     */
    public Map<UUID, UUID> artifactsOfClaims(StreamId stream, List<UUID> claimIds) {
        Map<UUID, UUID> found = claims.artifactsOf(stream, claimIds);
        if (found.size() != new HashSet<>(claimIds).size()) {
            Set<UUID> unknown = new HashSet<>(claimIds);
            unknown.removeAll(found.keySet());
            throw new ApiException(ProblemCode.NOT_FOUND, "stream " + stream + " has no claim " + unknown);
        }
        return found;
    }

    /**
     * Share-locks the tenant's artifacts until the caller's transaction ends (in id order: lock all of one
     * reference in one call).
     *
     * @throws ApiException {@code NOT_FOUND} for an artifact the tenant does not have, {@code EVIDENCE_EXPIRED} for
     *                      one evidence retention expired
     */
    public void lock(String tenant, Collection<UUID> artifactIds) {
        if (!TransactionSynchronizationManager.isActualTransactionActive()) {
            throw new IllegalStateException("a reference to evidence is taken inside the transaction that writes it");
        }
        Set<UUID> wanted = new HashSet<>(artifactIds);
        if (wanted.isEmpty()) {
            return;
        }
        Map<UUID, Artifact> locked = new HashMap<>();
        for (Artifact a : artifacts.lockShared(tenant, wanted)) {
            locked.put(a.artifactId(), a);
        }
        for (UUID id : wanted) {
            Artifact a = locked.get(id);
            if (a == null) {
                throw new ApiException(ProblemCode.NOT_FOUND, "tenant " + tenant + " has no evidence artifact " + id);
            }
            if (a.expiredAt() != null) {
                throw new ApiException(ProblemCode.EVIDENCE_EXPIRED, "evidence artifact " + id + " expired at "
                        + a.expiredAt());
            }
        }
    }
}

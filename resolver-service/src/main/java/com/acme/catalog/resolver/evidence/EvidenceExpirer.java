package com.acme.catalog.resolver.evidence;

import java.io.IOException;
import java.util.Optional;
import java.util.UUID;

import com.acme.catalog.contracts.objectstore.ObjectStore;

import org.springframework.stereotype.Component;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Expires one candidate artifact. In one transaction: lock the artifact row FOR UPDATE (the guarding lock), decide
 * again under it whether it may expire, delete its claims and runs and leave the row as an EXPIRED tombstone. Only
 * after that commits is the object deleted, and then marked deleted: a failure in between leaves an expired row whose
 * object the next run deletes, never a live row without its bytes.
 */
@Component
class EvidenceExpirer {

    private final TransactionTemplate tx;
    private final EvidenceRetentionRepository repository;
    private final ObjectStore store;

    EvidenceExpirer(TransactionTemplate tx, EvidenceRetentionRepository repository, ObjectStore store) {
        this.tx = tx;
        this.repository = repository;
        this.store = store;
    }

    /**
     * @return the artifact as it was before it expired; empty when, under its lock, it was referenced, active again,
     *         flagged missing or already expired (then nothing changed)
     */
    Optional<Artifact> expire(UUID artifactId, long windowSeconds) {
        return tx.execute(status -> {
            Optional<Artifact> locked = repository.lockForExpiry(artifactId);
            if (locked.isEmpty() || !repository.stillExpirable(artifactId, windowSeconds)) {
                return Optional.<Artifact>empty();
            }
            repository.expire(artifactId);
            return locked;
        });
    }

    /** Deletes the expired artifact's object and records that it is gone. */
    void deleteObject(Artifact expired) throws IOException {
        store.delete(expired.objectKey());
        repository.objectDeleted(expired.artifactId());
    }
}

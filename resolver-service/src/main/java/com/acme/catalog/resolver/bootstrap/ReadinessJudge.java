package com.acme.catalog.resolver.bootstrap;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import com.acme.catalog.contracts.checksum.ChecksumAnswer;

/**
 * Whether an imported stream is served: a pure decision over one round of answers, the product's completeness and
 * each checksum profile on both sides. Ready when the product reports the stream {@code CURRENT} in the import's
 * epoch, verified at or past the import's last position, and for every profile the resolver's state checksum and
 * the product's projection checksum answered at the same epoch and position with equal tables. Otherwise the reason
 * names the first thing that is not so.
 */
final class ReadinessJudge {

    /** The profiles compared, in order. */
    static final List<String> PROFILES = List.of("accepted-state-v1", "public-view-v1");

    private ReadinessJudge() {
    }

    /** The product's completeness answer as far as readiness needs it; null members where it did not say. */
    record Completeness(String state, Long epoch, Long verifiedThrough, String reason) {
    }

    /**
     * @param completeness what the product reported; null when it could not be read ({@code unreachable} says why)
     * @param resolver     the resolver's checksum per profile (read only once the product is current; may be empty)
     * @param product      the product's checksum per profile; a missing profile was not answered
     */
    static Verdict judge(long epoch, long lastPosition, Completeness completeness, String unreachable,
            Map<String, ChecksumAnswer> resolver, Map<String, ChecksumAnswer> product) {
        String notCurrent = notCurrent(epoch, lastPosition, completeness, unreachable);
        if (notCurrent != null) {
            return Verdict.no(notCurrent, Map.of());
        }
        Map<String, ImportSummary.ChecksumComparison> compared = new LinkedHashMap<>();
        String reason = null;
        for (String profile : PROFILES) {
            ChecksumAnswer r = resolver.get(profile);
            ChecksumAnswer p = product.get(profile);
            boolean equal = r != null && p != null && r.epoch() == p.epoch() && r.position() == p.position()
                    && r.tables().equals(p.tables());
            compared.put(profile, new ImportSummary.ChecksumComparison(r == null ? null : r.position(),
                    p == null ? null : p.position(), equal));
            if (!equal && reason == null) {
                reason = r == null || p == null ? profile + " was not answered by the " + (r == null ? "resolver"
                        : "product")
                        : r.epoch() != p.epoch() || r.position() != p.position() ? profile + " answered at epoch "
                                + r.epoch() + " position " + r.position() + " (resolver) and epoch " + p.epoch()
                                + " position " + p.position() + " (product)"
                        : profile + " differs: resolver " + r.tables() + ", product " + p.tables();
            }
        }
        return reason == null ? new Verdict(true, null, compared) : Verdict.no(reason, compared);
    }

    /**
     * The first half of the rule: why the product does not report the stream current at the import's epoch and last
     * position; null when it does (the checksums are worth comparing).
     */
    static String notCurrent(long epoch, long lastPosition, Completeness completeness, String unreachable) {
        if (completeness == null) {
            return "the product could not be asked (" + unreachable + ")";
        }
        if (!"CURRENT".equals(completeness.state())) {
            return "the product reports the stream " + completeness.state()
                    + (completeness.reason() == null ? "" : " (" + completeness.reason() + ")");
        }
        if (completeness.epoch() == null || completeness.epoch() != epoch) {
            return "the product serves epoch " + completeness.epoch() + ", the import wrote epoch " + epoch;
        }
        if (completeness.verifiedThrough() == null || completeness.verifiedThrough() < lastPosition) {
            return "the product is verified through position " + completeness.verifiedThrough()
                    + ", the import ended at " + lastPosition;
        }
        return null;
    }

    /** One round's verdict: ready, or why not; and the checksum comparisons made. */
    record Verdict(boolean ready, String reason, Map<String, ImportSummary.ChecksumComparison> checksums) {
        static Verdict no(String reason, Map<String, ImportSummary.ChecksumComparison> checksums) {
            return new Verdict(false, reason, checksums);
        }
    }
}

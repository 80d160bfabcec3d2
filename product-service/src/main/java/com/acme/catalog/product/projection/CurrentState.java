package com.acme.catalog.product.projection;

import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What a generation holds for some aggregates, read before a batch writes: the current revision of each existing
 * one (per tracked type), which of the items are deletions, and which items each release names.
 */
public record CurrentState(Map<String, Map<String, Integer>> revisions, Set<String> deletedItems,
        Map<String, List<String>> releaseItems) {
}

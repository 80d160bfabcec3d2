package com.acme.catalog.contracts.review;

import java.util.List;
import java.util.UUID;

import com.fasterxml.jackson.annotation.JsonInclude;

/**
 * {@code GET …/review-cases?status=&limit=&after=}: cases in id (creation) order; {@code next} is the
 * {@code after} of the following page, absent on the last.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record ReviewCaseList(List<ReviewCaseView> cases, UUID next) {

    public ReviewCaseList {
        cases = List.copyOf(cases);
    }
}

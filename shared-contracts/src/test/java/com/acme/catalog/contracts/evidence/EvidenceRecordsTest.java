package com.acme.catalog.contracts.evidence;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.UUID;

import com.acme.catalog.contracts.ApiException;
import com.acme.catalog.contracts.InvalidIdException;
import com.acme.catalog.contracts.ProblemCode;
import com.acme.catalog.contracts.UuidIds;
import com.acme.catalog.contracts.review.DecisionReceipt;
import com.acme.catalog.contracts.review.DecisionRequest;
import com.acme.catalog.contracts.review.ReviewCaseRequest;
import com.acme.catalog.contracts.review.Verdict;

import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

/** The evidence and review records as clients and the resolver read and write them. */
class EvidenceRecordsTest {

    private static final JsonMapper JSON = JsonMapper.builder().build();

    @Test
    void aRunReadsClaimsAndBothFormsOfUnmappedFields() {
        ExtractionRunRequest r = JSON.readValue("""
                {"artifactId":"0193a1b2-0000-7000-8000-000000000001","extractor":"html-v1",
                 "claims":[{"aggregateType":"item","aggregateId":"sku-1","field":"price","value":{"amount":120}}],
                 "unmappedFields":["footer",{"field":"badge","value":"new"}]}
                """, ExtractionRunRequest.class);
        assertThat(r.claims()).singleElement().satisfies(c -> assertThat(c.value().path("amount").intValue())
                .isEqualTo(120));
        assertThat(r.unmappedFields()).extracting(UnmappedField::field).containsExactly("footer", "badge");
        assertThat(r.unmappedFields().get(0).value()).isNull();
        assertThat(JSON.readValue("{\"artifactId\":\"0193a1b2-0000-7000-8000-000000000001\",\"extractor\":\"x\","
                + "\"claims\":[]}", ExtractionRunRequest.class).unmappedFields()).isEmpty();
    }

    @Test
    void refusalsNameTheFieldAndTheirCode() {
        assertThatThrownBy(() -> new ClaimInput("table", "sku-1", "f", null)).isInstanceOf(ApiException.class)
                .hasMessageContaining("aggregateType")
                .satisfies(e -> assertThat(((ApiException) e).code()).isEqualTo(ProblemCode.INVALID_BODY));
        assertThatThrownBy(() -> new ClaimInput("item", "sku 1", "f", null)).isInstanceOf(InvalidIdException.class);
        UUID id = UUID.randomUUID();
        assertThatThrownBy(() -> new ReviewCaseRequest(List.of(id, id), List.of(JSON.createObjectNode())))
                .hasMessageContaining("twice");
        assertThatThrownBy(() -> new DecisionRequest(Verdict.ACCEPT, " ", "r", null)).hasMessageContaining("reviewer");
        assertThatThrownBy(() -> UuidIds.parse("caseId", "1-1-1-1-1")).isInstanceOf(InvalidIdException.class);
        assertThat(UuidIds.parse("caseId", id.toString())).isEqualTo(id);
    }

    @Test
    void aRejectsReceiptHasNoPositions() {
        String reject = JSON.writeValueAsString(new DecisionReceipt(UUID.randomUUID(), Verdict.REJECT, null, null,
                null));
        assertThat(reject).doesNotContain("epoch").doesNotContain("Position");
        String accept = JSON.writeValueAsString(new DecisionReceipt(UUID.randomUUID(), Verdict.ACCEPT, 1L, 4L, 6L));
        assertThat(accept).contains("\"epoch\":1").contains("\"firstPosition\":4").contains("\"lastPosition\":6");
    }
}

package com.acme.catalog.product.completeness;

/** States of {@code GET /v1/projection-completeness}; the gauge {@code product_completeness_state} shows the code. */
public enum CompletenessState {
    CURRENT(0), CATCHING_UP(1), RETRYING(2), BLOCKED(3);

    private final int code;

    CompletenessState(int code) {
        this.code = code;
    }

    public int code() {
        return code;
    }
}

package com.acme.catalog.platform.checksum;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;

import com.acme.catalog.contracts.checksum.ChecksumProfile;

import org.junit.jupiter.api.Test;

class ChecksumQueryTest {

    @Test
    void anEmptyPublicViewAnswersItsProfileAndTheEmptyDigest() {
        Map<String, Object> answer = ChecksumQuery.answer(1, 7, ChecksumProfile.PUBLIC_VIEW,
                ChecksumQuery.empty(ChecksumProfile.PUBLIC_VIEW));
        assertThat(answer).containsEntry("profile", "public-view-v1").containsEntry("position", 7L);
        assertThat(answer.get("tables").toString()).contains("publicItems")
                .contains("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    }
}

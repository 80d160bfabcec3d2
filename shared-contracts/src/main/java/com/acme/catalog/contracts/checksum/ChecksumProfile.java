package com.acme.catalog.contracts.checksum;

import java.util.Arrays;
import java.util.List;

import com.acme.catalog.contracts.ApiException;
import com.acme.catalog.contracts.ProblemCode;
import com.acme.catalog.contracts.checksum.AcceptedStateChecksum.Column;
import com.acme.catalog.contracts.checksum.AcceptedStateChecksum.Table;

/**
 * The checksum profiles the resolver's {@code state-checksum} and the product's {@code projection-checksum}
 * answer, selected with {@code ?profile=}: {@value AcceptedStateChecksum#PROFILE} (the default: current accepted
 * state) and {@value PublicViewChecksum#PROFILE} (what public readers are served).
 */
public enum ChecksumProfile {

    ACCEPTED_STATE(AcceptedStateChecksum.PROFILE, Arrays.stream(Table.values())
            .map(t -> new ProfileTable(t.name(), t.columns())).toList()),
    PUBLIC_VIEW(PublicViewChecksum.PROFILE, List.of(new ProfileTable(PublicViewChecksum.TABLE,
            PublicViewChecksum.COLUMNS)));

    /** One table of a profile: its name in the answer's {@code tables} and its exact column list. */
    public record ProfileTable(String name, List<Column> columns) {
        public ProfileTable {
            columns = List.copyOf(columns);
        }
    }

    private final String profileName;
    private final List<ProfileTable> tables;

    ChecksumProfile(String profileName, List<ProfileTable> tables) {
        this.profileName = profileName;
        this.tables = tables;
    }

    /** @return the profile's name on the wire, e.g. {@code public-view-v1} */
    public String profileName() {
        return profileName;
    }

    /** @return the profile's tables, in the order the answer lists them */
    public List<ProfileTable> tables() {
        return tables;
    }

    /**
     * The profile a {@code ?profile=} parameter names; none (null or empty) is {@link #ACCEPTED_STATE}.
     *
     * @throws ApiException 400 {@code INVALID_BODY} for any other name
     */
    public static ChecksumProfile named(String name) {
        if (name == null || name.isEmpty()) {
            return ACCEPTED_STATE;
        }
        for (ChecksumProfile p : values()) {
            if (p.profileName.equals(name)) {
                return p;
            }
        }
        throw new ApiException(ProblemCode.INVALID_BODY, "unknown checksum profile '" + printable(name)
                + "'; known: " + Arrays.stream(values()).map(ChecksumProfile::profileName).toList());
    }

    private static String printable(String s) {
        String cut = s.length() > 64 ? s.substring(0, 64) + "…" : s;
        return cut.codePoints().allMatch(c -> c >= 0x20 && c < 0x7f) ? cut : "(not printable ASCII)";
    }
}

package com.acme.catalog.testsupport.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

/**
 * Code, configuration, scripts and docs say what is true without pointing at the tracker: no issue number, part or
 * item of an issue in a comment, a doc, a pom or a script. The history of why a line is there is in git; a sentence
 * that needs an issue to make sense does not say enough.
 *
 * <p>Not scanned: the records of past runs ({@code docs/benchmarks-archive.md}, {@code docs/bench-runs/}), and the
 * Flyway migrations, which are immutable once applied (Flyway validates each applied migration's checksum, so a
 * changed comment fails every database that ran it).
 */
class IssueReferencesTest {

    /**
     * Files that still name issues and belong to work in flight on other branches. Remove each line when its
     * branch has merged and the file is cleaned; {@link #theAllowListHoldsOnlyFilesThatStillNeedIt} fails on a line
     * that is no longer needed.
     */
    static final Set<String> PENDING_MERGE = Set.of(
            "docs/epochs.md",
            "product-service/src/main/java/com/acme/catalog/product/recovery/EpochsBeforeResume.java",
            "product-service/src/test/java/com/acme/catalog/product/rebuild/RebuildRetryIT.java",
            "product-service/src/test/java/com/acme/catalog/product/recovery/EpochChangeIT.java",
            "product-service/src/test/java/com/acme/catalog/product/recovery/RecoveryWorkerIT.java",
            "product-service/src/test/java/com/acme/catalog/product/recovery/RollbackServingIT.java");

    /**
     * The word issue (or issues, any case), then a number after white space or a {@code #}; not a name that runs the
     * two together, as the run records' file names do.
     */
    static final Pattern ISSUE = Pattern.compile("(?i)\\bissues?(?:\\s+|\\s*#)[0-9]+");

    private static final Pattern SCANNED = Pattern.compile(
            ".*\\.(java|md|ya?ml|xml|sh|properties|json|txt|conf|toml|sql)|.*/?Dockerfile|\\.ci/[^/]+|bin/[^/]+");

    static boolean scanned(String file) {
        return SCANNED.matcher(file).matches() && !file.startsWith("docs/bench-runs/")
                && !DocReferencesTest.HISTORICAL.contains(file) && !file.startsWith("db/src/main/resources/db/");
    }

    static List<String> references(String file, String text) {
        List<String> out = new ArrayList<>();
        String[] lines = text.split("\n", -1);
        for (int i = 0; i < lines.length; i++) {
            Matcher m = ISSUE.matcher(lines[i]);
            while (m.find()) {
                out.add(file + ":" + (i + 1) + ": " + m.group());
            }
        }
        return out;
    }

    private static List<String> referencesIn(String file) {
        return references(file, DocReferencesTest.TREE.text(file).orElse(""));
    }

    @Test
    void noIssueNumbersInCodeOrDocs() {
        List<String> files = DocReferencesTest.TREE.files().stream().filter(IssueReferencesTest::scanned).toList();
        assertThat(files).contains("README.md", "docs/design.md", "pom.xml", ".ci/run", "bin/demo.sh",
                "resolver-service/src/main/resources/application.yml",
                "resolver-service/src/main/java/com/acme/catalog/resolver/stream/CursorRepository.java");

        assertThat(files.stream().filter(f -> !PENDING_MERGE.contains(f)).flatMap(f -> referencesIn(f).stream()))
                .as("issue numbers: say what is true without them (the history is in git)").isEmpty();
    }

    @Test
    void theAllowListHoldsOnlyFilesThatStillNeedIt() {
        assertThat(PENDING_MERGE).allSatisfy(f -> assertThat(referencesIn(f)).as(f).isNotEmpty());
    }

    @Test
    void theScanFindsPlantedReferences() {
        String text = """
                // fixed in ISSUE_31 item 2
                 * (ISSUE_16 part 4), see ISSUE_#22 and ISSUES_29
                bench-runs/2026-12-06-issue31-keyed.jsonl, an issue of time, 31 issues
                """;

        assertThat(references("Planted.java", unmasked(text))).containsExactly(unmasked("Planted.java:1: ISSUE_31"),
                unmasked("Planted.java:2: ISSUE_16"), unmasked("Planted.java:2: ISSUE_#22"),
                unmasked("Planted.java:2: ISSUES_29"));
    }

    /** Planted text is written masked, so that this file does not name an issue itself. */
    private static String unmasked(String masked) {
        return masked.replace("ISSUES_", "issues ").replace("ISSUE_", "issue ");
    }
}

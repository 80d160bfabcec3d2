package com.acme.catalog.testsupport.docs;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The little of Markdown the reference check needs: which lines are inside fenced code blocks, the headings and the
 * anchors GitHub derives from them, code spans, and inline links.
 */
final class Markdown {

    private static final Pattern FENCE = Pattern.compile("^\\s{0,3}(```|~~~)");
    private static final Pattern HEADING = Pattern.compile("^#{1,6}\\s+(.*?)\\s*#*\\s*$");
    private static final Pattern CODE_SPAN = Pattern.compile("`([^`\\n]+)`");
    private static final Pattern LINK = Pattern.compile("!?\\[([^\\]]*)\\]\\(([^)\\s]+)(?:\\s+\"[^\"]*\")?\\)");
    private static final Pattern HTML_ANCHOR = Pattern.compile("<a\\s+(?:name|id)=\"([^\"]+)\"");

    private Markdown() {
    }

    /** One line of a page, numbered from 1, and whether it is inside a fenced code block (the fences included). */
    record Line(int number, String text, boolean fenced) {
    }

    static List<Line> lines(String page) {
        List<Line> out = new ArrayList<>();
        boolean fenced = false;
        String[] lines = page.split("\n", -1);
        for (int i = 0; i < lines.length; i++) {
            boolean fence = FENCE.matcher(lines[i]).find();
            out.add(new Line(i + 1, lines[i], fenced || fence));
            if (fence) {
                fenced = !fenced;
            }
        }
        return out;
    }

    /** @return the headings' text as written (Markdown included), in page order, fenced blocks skipped */
    static List<String> headings(String page) {
        List<String> out = new ArrayList<>();
        for (Line l : lines(page)) {
            Matcher m = HEADING.matcher(l.text());
            if (!l.fenced() && m.matches()) {
                out.add(m.group(1));
            }
        }
        return out;
    }

    private static final Pattern BOLD_LEAD = Pattern.compile("^(?:[-*]\\s+|\\d+\\.\\s+)?\\*\\*(.+?)\\*\\*");

    /** @return the titles a reader may name a section by: the headings, and paragraphs or items led by bold text */
    static List<String> sections(String page) {
        List<String> out = new ArrayList<>(headings(page));
        for (Line l : lines(page)) {
            Matcher m = BOLD_LEAD.matcher(l.text());
            if (!l.fenced() && m.find()) {
                out.add(m.group(1));
            }
        }
        return out;
    }

    /** @return every anchor of the page: its headings' GitHub anchors (a repeated one numbered) and HTML anchors */
    static Set<String> anchors(String page) {
        Set<String> out = new LinkedHashSet<>();
        Map<String, Integer> seen = new HashMap<>();
        for (String heading : headings(page)) {
            String slug = slug(heading);
            int n = seen.merge(slug, 1, Integer::sum);
            out.add(n == 1 ? slug : slug + "-" + (n - 1));
        }
        Matcher m = HTML_ANCHOR.matcher(page);
        while (m.find()) {
            out.add(m.group(1));
        }
        return out;
    }

    /**
     * GitHub's anchor of a heading: its rendered text (a link's text, no code marks) lower-cased, every character
     * that is not a letter, a digit, {@code _}, {@code -} or a space dropped, spaces turned into {@code -}.
     */
    static String slug(String heading) {
        String text = LINK.matcher(heading).replaceAll("$1").replace("`", "");
        return text.toLowerCase(Locale.ROOT).replaceAll("[^\\p{L}\\p{M}\\p{N}_\\- ]", "").replace(' ', '-');
    }

    /** @return a heading's rendered text, for matching a section named in quotes */
    static String plain(String heading) {
        return LINK.matcher(heading).replaceAll("$1").replace("`", "").replace("*", "");
    }

    /** A code span's text and where it starts in its line. */
    record Span(String text, int start) {
    }

    static List<Span> codeSpans(String line) {
        List<Span> out = new ArrayList<>();
        Matcher m = CODE_SPAN.matcher(line);
        while (m.find()) {
            out.add(new Span(m.group(1).strip(), m.start()));
        }
        return out;
    }

    /** The line with its code spans blanked (same length), so that a link shown as code is not read as a link. */
    static String withoutCodeSpans(String line) {
        Matcher m = CODE_SPAN.matcher(line);
        StringBuilder b = new StringBuilder();
        while (m.find()) {
            m.appendReplacement(b, " ".repeat(m.group().length()));
        }
        m.appendTail(b);
        return b.toString();
    }

    /** The line with its links' targets blanked: what is left of the text after the link rules read them. */
    static String withoutLinkTargets(String line) {
        Matcher m = LINK.matcher(line);
        StringBuilder b = new StringBuilder();
        while (m.find()) {
            m.appendReplacement(b, Matcher.quoteReplacement("[" + m.group(1) + "]"));
        }
        m.appendTail(b);
        return b.toString();
    }

    /** @return the targets of the line's inline links, as written ({@code path}, {@code path#anchor}, {@code #anchor}) */
    static List<String> linkTargets(String line) {
        List<String> out = new ArrayList<>();
        Matcher m = LINK.matcher(withoutCodeSpans(line));
        while (m.find()) {
            out.add(m.group(2));
        }
        return out;
    }
}

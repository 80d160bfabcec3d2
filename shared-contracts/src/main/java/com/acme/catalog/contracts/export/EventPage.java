package com.acme.catalog.contracts.export;

import java.util.ArrayList;
import java.util.List;

import com.acme.catalog.contracts.ApiException;
import com.acme.catalog.contracts.ChainDigest;
import com.acme.catalog.contracts.EventWire;
import com.acme.catalog.contracts.ProblemCode;

import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * One page of {@code GET /v1/exports/events}, with each event kept as the exact text it was sent as: parsing an
 * event into a tree and writing it back would change its bytes and break the chain, so {@link #parse} cuts the
 * event objects out of the page text instead.
 */
public record EventPage(String tenant, String catalog, long epoch, long after, long through,
        String chainDigestAfter, String chainDigestThrough, long head, List<String> events) {

    private static final JsonMapper JSON = JsonMapper.builder().build();

    public EventPage {
        events = List.copyOf(events);
    }

    /**
     * Parses a page body.
     *
     * @throws IllegalArgumentException when it is not a page
     */
    public static EventPage parse(String body) {
        try {
            JsonNode p = JSON.readTree(body);
            return new EventPage(p.path("tenant").stringValue(), p.path("catalog").stringValue(),
                    p.path("epoch").longValue(), p.path("after").longValue(), p.path("through").longValue(),
                    p.path("chainDigestAfter").stringValue(), p.path("chainDigestThrough").stringValue(),
                    p.path("head").longValue(), rawEvents(body));
        } catch (JacksonException e) {
            throw new IllegalArgumentException("not an event page: " + e.getMessage(), e);
        }
    }

    /**
     * Verifies the page's chain: from {@code chainDigestAfter}, each event's digest is
     * {@code ChainDigest.next(previous, wire)}, the last one is {@code chainDigestThrough}, and there is exactly one
     * event per position after..through.
     *
     * @param expectedAfter the digest the caller holds at {@code after} (the manifest's, or the previous page's
     *                      {@code chainDigestThrough})
     * @return the events split into stored wire and digest, in order
     * @throws ApiException {@code CHAIN_BROKEN} on any mismatch
     */
    public List<EventWire.Split> verify(String expectedAfter) {
        if (!chainDigestAfter.equals(expectedAfter)) {
            throw broken("the page starts from digest " + chainDigestAfter + ", not " + expectedAfter);
        }
        if (events.size() != through - after) {
            throw broken("the page holds " + events.size() + " events for positions " + after + ".." + through);
        }
        List<EventWire.Split> out = new ArrayList<>(events.size());
        String digest = chainDigestAfter;
        long position = after;
        for (String event : events) {
            position++;
            EventWire.Split split = EventWire.split(event);
            digest = ChainDigest.next(digest, split.wire());
            if (!digest.equals(split.chainDigest())) {
                throw broken("the digest of position " + position + " does not follow from its wire");
            }
            out.add(split);
        }
        if (!digest.equals(chainDigestThrough)) {
            throw broken("the page ends at digest " + digest + ", not chainDigestThrough " + chainDigestThrough);
        }
        return out;
    }

    private ApiException broken(String why) {
        return new ApiException(ProblemCode.CHAIN_BROKEN, "events of %s/%s epoch %d after %d: %s"
                .formatted(tenant, catalog, epoch, after, why));
    }

    /** The objects of the page's {@code events} array, each exactly as written. */
    static List<String> rawEvents(String page) {
        int start = page.indexOf("\"events\":[");
        if (start < 0) {
            throw new IllegalArgumentException("page has no events array");
        }
        List<String> out = new ArrayList<>();
        int depth = 0;
        boolean inString = false;
        int from = -1;
        for (int i = start + "\"events\":[".length(); i < page.length(); i++) {
            char c = page.charAt(i);
            if (inString) {
                if (c == '\\') {
                    i++;
                } else if (c == '"') {
                    inString = false;
                }
            } else if (c == '"') {
                inString = true;
            } else if (c == '{') {
                if (depth++ == 0) {
                    from = i;
                }
            } else if (c == '}') {
                if (--depth == 0) {
                    out.add(page.substring(from, i + 1));
                }
            } else if (c == ']' && depth == 0) {
                return out;
            }
        }
        throw new IllegalArgumentException("page's events array is not closed");
    }
}

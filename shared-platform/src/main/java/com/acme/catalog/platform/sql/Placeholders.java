package com.acme.catalog.platform.sql;

import java.util.ArrayList;
import java.util.List;

/**
 * The parameters of one piece of statement text: how many {@code ?} it holds and which {@code :name}s, in order of
 * appearance, and the text with every {@code :name} turned into a {@code ?}. Quoted literals ({@code '…'}), quoted
 * identifiers ({@code "…"}), comments and {@code ::} casts are passed over, as PostgreSQL's driver passes over them.
 *
 * @param positional how many {@code ?} the text holds
 * @param names      the named parameters, one entry per use
 * @param text       the text with every {@code :name} replaced by {@code ?}
 */
record Placeholders(int positional, List<String> names, String text) {

    static Placeholders scan(String sql) {
        StringBuilder out = new StringBuilder(sql.length());
        List<String> names = new ArrayList<>();
        int positional = 0;
        int n = sql.length();
        int i = 0;
        while (i < n) {
            char c = sql.charAt(i);
            int end;
            if (c == '\'' || c == '"') {
                end = sql.indexOf(c, i + 1);
                end = end < 0 ? n : end + 1;
            } else if (c == '-' && i + 1 < n && sql.charAt(i + 1) == '-') {
                end = sql.indexOf('\n', i);
                end = end < 0 ? n : end;
            } else if (c == '/' && i + 1 < n && sql.charAt(i + 1) == '*') {
                end = sql.indexOf("*/", i + 2);
                end = end < 0 ? n : end + 2;
            } else if (c == ':' && i + 1 < n && sql.charAt(i + 1) == ':') {
                end = i + 2;
            } else if (c == ':' && i + 1 < n && isNameStart(sql.charAt(i + 1))) {
                end = i + 2;
                while (end < n && isNamePart(sql.charAt(end))) {
                    end++;
                }
                names.add(sql.substring(i + 1, end));
                out.append('?');
                i = end;
                continue;
            } else {
                if (c == '?') {
                    positional++;
                }
                end = i + 1;
            }
            out.append(sql, i, end);
            i = end;
        }
        return new Placeholders(positional, List.copyOf(names), out.toString());
    }

    private static boolean isNameStart(char c) {
        return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
    }

    private static boolean isNamePart(char c) {
        return isNameStart(c) || (c >= '0' && c <= '9');
    }
}

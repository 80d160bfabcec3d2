package com.acme.catalog.testsupport;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Threads a service's main sources create by hand instead of through {@code platform.concurrent.DaemonThreads}
 * (daemon, named after their job, logging what escapes their task), for a test that fails when one comes back: a
 * {@code new Thread(…)}, a {@code Thread.ofPlatform()}/{@code ofVirtual()}, an executor constructed directly, an
 * {@code Executors.new…(…)} call whose arguments name no {@code DaemonThreads} factory (it would make the JDK's
 * default, non-daemon, anonymously named threads), or periodic work handed to Spring's scheduler ({@code @Scheduled},
 * {@code @EnableScheduling}, a {@code SchedulingConfigurer}, a {@code TaskScheduler}: one shared thread for every job of the application, where
 * a slow job delays the others; periodic work runs on {@code platform.concurrent.PeriodicTasks}). Comments are not
 * scanned.
 */
public final class HandMadeThreads {

    private static final Pattern DIRECT = Pattern.compile("new\\s+Thread\\s*\\(|Thread\\s*\\.\\s*of(Platform|Virtual)\\s*\\("
            + "|Thread\\s*\\.\\s*startVirtualThread\\s*\\(|new\\s+(ForkJoinPool|Timer)\\s*\\("
            + "|@Scheduled\\b|@EnableScheduling\\b|\\bSchedulingConfigurer\\b|\\bTaskScheduler\\b");
    /** Executors made by a factory method or a constructor: fine when their arguments name a DaemonThreads factory. */
    private static final Pattern EXECUTORS = Pattern.compile(
            "Executors\\s*\\.\\s*new\\w*\\s*\\(|new\\s+(ScheduledThreadPoolExecutor|ThreadPoolExecutor)\\s*\\(");
    /** Comments, and import lines (an import makes no thread). */
    private static final Pattern COMMENTS = Pattern.compile("/\\*.*?\\*/|//[^\\n]*|(?m)^import\\s[^\\n]*",
            Pattern.DOTALL);

    private HandMadeThreads() {
    }

    /**
     * @param sourceRoot the main sources to scan (every {@code .java} file below it)
     * @param allowed    file names (e.g. {@code Foo.java}) that may make their own threads, each for a stated reason
     * @return one line per hand-made thread, {@code File.java:line: the call}; empty when there is none
     */
    public static List<String> find(Path sourceRoot, Set<String> allowed) {
        List<String> out = new ArrayList<>();
        try (Stream<Path> files = Files.walk(sourceRoot)) {
            for (Path file : files.filter(f -> f.toString().endsWith(".java")).sorted().toList()) {
                String name = file.getFileName().toString();
                if (!allowed.contains(name)) {
                    out.addAll(find(name, Files.readString(file)));
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out;
    }

    /** @return the hand-made threads of one source file's text, each line as {@link #find(Path, Set)} gives it */
    public static List<String> find(String name, String source) {
        String code = blankComments(source);
        List<String> out = new ArrayList<>();
        Matcher direct = DIRECT.matcher(code);
        while (direct.find()) {
            out.add(name + ":" + line(code, direct.start()) + ": " + direct.group());
        }
        Matcher executors = EXECUTORS.matcher(code);
        while (executors.find()) {
            String arguments = arguments(code, executors.end());
            if (!arguments.contains("DaemonThreads.")) {
                out.add(name + ":" + line(code, executors.start()) + ": " + executors.group() + arguments + ")");
            }
        }
        return out;
    }

    /** The comments replaced by spaces, newlines kept, so that offsets still give the right line. */
    private static String blankComments(String source) {
        Matcher m = COMMENTS.matcher(source);
        StringBuilder b = new StringBuilder(source.length());
        while (m.find()) {
            m.appendReplacement(b, Matcher.quoteReplacement(m.group().replaceAll("[^\\n]", " ")));
        }
        m.appendTail(b);
        return b.toString();
    }

    /** The text from {@code open} (just after a call's opening parenthesis) to its matching closing one. */
    private static String arguments(String code, int open) {
        int depth = 1;
        for (int i = open; i < code.length(); i++) {
            char c = code.charAt(i);
            if (c == '(') {
                depth++;
            } else if (c == ')' && --depth == 0) {
                return code.substring(open, i);
            }
        }
        return code.substring(open);
    }

    private static int line(String code, int offset) {
        int line = 1;
        for (int i = 0; i < offset; i++) {
            if (code.charAt(i) == '\n') {
                line++;
            }
        }
        return line;
    }
}

package com.acme.catalog.bench;

/** Entry point: {@code java -jar bench/target/bench.jar SCENARIO [options]}. */
public final class Bench {
    public static void main(String[] args) {
        System.err.println("usage: bench SCENARIO");
    }
}

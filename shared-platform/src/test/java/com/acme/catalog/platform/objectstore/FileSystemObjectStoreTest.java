package com.acme.catalog.platform.objectstore;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.Random;
import java.util.stream.Stream;

import com.acme.catalog.contracts.ChainDigest;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import com.acme.catalog.contracts.objectstore.ObjectStore;

/** The file store's write path: a reused direct buffer per thread, exact bytes and SHA-256 whatever the write sizes. */
class FileSystemObjectStoreTest {

    @TempDir
    Path root;

    @Test
    void storesExactlyWhatWasWrittenInMixedWriteSizes() throws Exception {
        FileSystemObjectStore store = new FileSystemObjectStore(root);
        long seed = System.nanoTime();
        Random r = new Random(seed);
        for (int round = 0; round < 20; round++) {
            ByteArrayOutputStream expected = new ByteArrayOutputStream();
            int writes = 1 + r.nextInt(40);
            byte[][] pieces = new byte[writes][];
            for (int i = 0; i < writes; i++) {
                // single bytes, sizes around the 64 KiB buffer, and writes of several buffers at once
                int size = switch (r.nextInt(4)) {
                    case 0 -> 1;
                    case 1 -> 65536 + r.nextInt(3) - 1;
                    case 2 -> r.nextInt(300_000);
                    default -> r.nextInt(100);
                };
                pieces[i] = new byte[size];
                r.nextBytes(pieces[i]);
                expected.write(pieces[i]);
            }
            String key = "t/" + round + "/obj";
            ObjectStore.StoredObject stored = store.put(key, "application/octet-stream", out -> {
                for (byte[] p : pieces) {
                    if (p.length == 1) {
                        out.write(p[0]);
                    } else {
                        out.write(p, 0, p.length);
                    }
                }
            });
            byte[] want = expected.toByteArray();
            try (InputStream in = store.get(key)) {
                assertThat(in.readAllBytes()).as("seed %d round %d", seed, round).isEqualTo(want);
            }
            assertThat(stored.bytes()).as("seed %d round %d", seed, round).isEqualTo(want.length);
            assertThat(stored.sha256()).as("seed %d round %d", seed, round).isEqualTo(sha(want));
        }
    }

    @Test
    void aPutInsideABodyWriterOnTheSameThreadHasItsOwnBuffer() throws Exception {
        FileSystemObjectStore store = new FileSystemObjectStore(root);
        byte[] outer = filled(100_000, 1);
        byte[] inner = filled(70_000, 2);
        ObjectStore.StoredObject o = store.put("outer", "application/octet-stream", out -> {
            out.write(outer, 0, 50_000);
            store.put("inner", "application/octet-stream", in -> in.write(inner));
            out.write(outer, 50_000, 50_000);
        });
        assertThat(Files.readAllBytes(root.resolve("outer"))).isEqualTo(outer);
        assertThat(Files.readAllBytes(root.resolve("inner"))).isEqualTo(inner);
        assertThat(o.sha256()).isEqualTo(sha(outer));
    }

    @Test
    void aFailedWriteLeavesNoObjectAndNoTempFileAndTheNextPutIsClean() throws Exception {
        FileSystemObjectStore store = new FileSystemObjectStore(root);
        assertThatThrownBy(() -> store.put("d/failed", "text/plain", out -> {
            out.write(filled(100_000, 3));
            out.write(filled(10, 4)); // half a buffer left unwritten when it fails
            throw new IOException("writer failed");
        })).hasMessage("writer failed");
        assertThat(store.exists("d/failed")).isFalse();
        try (Stream<Path> files = Files.list(root.resolve("d"))) {
            assertThat(files).as("no temp file left").isEmpty();
        }
        byte[] next = filled(10, 5);
        ObjectStore.StoredObject s = store.put("d/next", "text/plain", out -> out.write(next));
        assertThat(Files.readAllBytes(root.resolve("d/next"))).as("no bytes of the failed put leak into the next")
                .isEqualTo(next);
        assertThat(s.bytes()).isEqualTo(10);
        assertThat(s.sha256()).isEqualTo(sha(next));
        try (Stream<Path> files = Files.list(root.resolve("d"))) {
            assertThat(files.map(p -> p.getFileName().toString())).containsExactly("next");
        }
    }

    @Test
    void createsMissingDirectoriesAndReplacesAnExistingObject() throws Exception {
        FileSystemObjectStore store = new FileSystemObjectStore(root);
        store.put("a/b/c/x", "text/plain", out -> out.write(filled(5, 6)));
        store.put("a/b/c/x", "text/plain", out -> out.write(filled(3, 7)));
        assertThat(Files.readAllBytes(root.resolve("a/b/c/x"))).isEqualTo(filled(3, 7));
        assertThat(store.list("a/")).containsExactly("a/b/c/x");
    }

    private static byte[] filled(int size, long seed) {
        byte[] b = new byte[size];
        new Random(seed).nextBytes(b);
        return b;
    }

    private static String sha(byte[] b) {
        return HexFormat.of().formatHex(ChainDigest.sha256().digest(b));
    }
}

package com.acme.catalog.contracts.objectstore;

import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.stream.Stream;

/** Objects as files under a root directory; writes go to a temp file first and are moved into place atomically. */
public final class FileSystemObjectStore implements ObjectStore {

    private final Path root;

    public FileSystemObjectStore(Path root) throws IOException {
        this.root = root.toAbsolutePath().normalize();
        Files.createDirectories(this.root);
    }

    @Override
    public StoredObject put(String key, String contentType, BodyWriter body) throws IOException {
        Path target = resolve(key);
        Files.createDirectories(target.getParent());
        Path tmp = Files.createTempFile(target.getParent(), ".upload-", ".tmp");
        try {
            DigestingOutputStream digesting;
            try (OutputStream file = Files.newOutputStream(tmp);
                 DigestingOutputStream d = new DigestingOutputStream(new BufferedOutputStream(file, 1 << 16))) {
                digesting = d;
                body.writeTo(d);
            }
            try {
                Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING);
            }
            return new StoredObject(key, digesting.count(), digesting.sha256());
        } finally {
            Files.deleteIfExists(tmp);
        }
    }

    @Override
    public InputStream get(String key) throws IOException {
        try {
            return Files.newInputStream(resolve(key));
        } catch (NoSuchFileException e) {
            throw new NoSuchObjectException(key);
        }
    }

    @Override
    public boolean exists(String key) {
        return Files.isRegularFile(resolve(key));
    }

    @Override
    public void delete(String key) throws IOException {
        Files.deleteIfExists(resolve(key));
    }

    @Override
    public List<String> list(String prefix) throws IOException {
        if (!Files.isDirectory(root)) {
            return List.of();
        }
        try (Stream<Path> files = Files.walk(root)) {
            return files.filter(Files::isRegularFile)
                    .map(p -> root.relativize(p).toString().replace('\\', '/'))
                    .filter(k -> k.startsWith(prefix) && !k.contains("/.upload-"))
                    .sorted().toList();
        }
    }

    @Override
    public String describe() {
        return "file:" + root;
    }

    private Path resolve(String key) {
        if (key.isEmpty() || key.startsWith("/") || key.contains("..") || key.contains("\\")) {
            throw new IllegalArgumentException("object key '" + key + "' is not a relative path");
        }
        return root.resolve(key);
    }
}

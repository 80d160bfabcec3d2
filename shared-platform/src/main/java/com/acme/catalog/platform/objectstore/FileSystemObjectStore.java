package com.acme.catalog.platform.objectstore;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.stream.Stream;
import com.acme.catalog.contracts.objectstore.ObjectStore;

/** Objects as files under a root directory; writes go to a temp file first and are moved into place atomically. */
public final class FileSystemObjectStore implements ObjectStore {

    private static final int WRITE_BUFFER = 1 << 16;
    /** 64 KiB of direct memory per thread that has written an object, reused by its next put. */
    private static final ThreadLocal<ByteBuffer[]> WRITE_BUFFERS = ThreadLocal.withInitial(() -> new ByteBuffer[1]);

    private final Path root;

    public FileSystemObjectStore(Path root) throws IOException {
        this.root = root.toAbsolutePath().normalize();
        Files.createDirectories(this.root);
    }

    @Override
    public StoredObject put(String key, String contentType, BodyWriter body) throws IOException {
        Path target = resolve(key);
        Path dir = target.getParent();
        if (!Files.isDirectory(dir)) {
            // createDirectories on an existing directory throws and catches two exceptions, each filling in the
            // caller's stack trace (under a web request, a hundred frames): seen in the profile of every intake
            Files.createDirectories(dir);
        }
        Path tmp = Files.createTempFile(dir, ".upload-", ".tmp");
        boolean moved = false;
        ByteBuffer buffer = borrowBuffer();
        try {
            DigestingOutputStream digesting;
            try (FileChannel channel = FileChannel.open(tmp, StandardOpenOption.WRITE);
                 DigestingOutputStream d = new DigestingOutputStream(new ChannelOutput(channel, buffer))) {
                digesting = d;
                body.writeTo(d);
            }
            try {
                Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING);
            }
            moved = true;
            return new StoredObject(key, digesting.count(), digesting.sha256());
        } finally {
            returnBuffer(buffer);
            if (!moved) {
                Files.deleteIfExists(tmp);
            }
        }
    }

    /** This thread's write buffer; a nested put on the same thread (a body writer that puts) gets its own. */
    private static ByteBuffer borrowBuffer() {
        ByteBuffer[] slot = WRITE_BUFFERS.get();
        ByteBuffer b = slot[0];
        slot[0] = null;
        return (b == null ? ByteBuffer.allocateDirect(WRITE_BUFFER) : b).clear();
    }

    private static void returnBuffer(ByteBuffer b) {
        WRITE_BUFFERS.get()[0] = b;
    }

    /**
     * Writes through a direct buffer to the file: a {@code FileChannel} write from a heap array (what
     * {@code Files.newOutputStream} does) first copies the bytes into a temporary direct buffer, so a buffered stream
     * over it copied every byte twice before the kernel's copy; this copies once.
     */
    private static final class ChannelOutput extends OutputStream {
        private final FileChannel channel;
        private final ByteBuffer buffer;
        private boolean closed;

        ChannelOutput(FileChannel channel, ByteBuffer buffer) {
            this.channel = channel;
            this.buffer = buffer;
        }

        @Override
        public void write(int b) throws IOException {
            if (!buffer.hasRemaining()) {
                drain();
            }
            buffer.put((byte) b);
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            java.util.Objects.checkFromIndexSize(off, len, b.length);
            while (len > 0) {
                if (!buffer.hasRemaining()) {
                    drain();
                }
                int n = Math.min(len, buffer.remaining());
                buffer.put(b, off, n);
                off += n;
                len -= n;
            }
        }

        @Override
        public void flush() throws IOException {
            drain();
        }

        private void drain() throws IOException {
            buffer.flip();
            while (buffer.hasRemaining()) {
                channel.write(buffer);
            }
            buffer.clear();
        }

        @Override
        public void close() throws IOException {
            if (!closed) {
                closed = true;
                drain();
            }
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

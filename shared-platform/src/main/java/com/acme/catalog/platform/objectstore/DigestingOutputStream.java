package com.acme.catalog.platform.objectstore;

import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.security.MessageDigest;
import java.util.HexFormat;

import com.acme.catalog.contracts.ChainDigest;

/** Counts and hashes (SHA-256) the bytes passing through to the underlying stream. */
final class DigestingOutputStream extends FilterOutputStream {

    private final MessageDigest sha = ChainDigest.sha256();
    private long count;

    DigestingOutputStream(OutputStream out) {
        super(out);
    }

    @Override
    public void write(int b) throws IOException {
        out.write(b);
        sha.update((byte) b);
        count++;
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
        out.write(b, off, len);
        sha.update(b, off, len);
        count += len;
    }

    long count() {
        return count;
    }

    String sha256() {
        return HexFormat.of().formatHex(sha.digest());
    }
}

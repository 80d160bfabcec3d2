package com.acme.catalog.testsupport;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A loopback port that speaks just enough of PostgreSQL's protocol to refuse every connection the way a server
 * that is shutting down does: {@code FATAL 57P03 the database system is shutting down}. What a service meets when
 * it starts during a PostgreSQL restart; close it and let a real server (or a {@link CuttableProxy}) take the port.
 */
public final class ShuttingDownPostgres implements AutoCloseable {

    private static final int SSL_REQUEST = 80877103;
    private static final int GSSENC_REQUEST = 80877104;

    private final ServerSocket server;
    private final AtomicInteger refused = new AtomicInteger();
    private final Thread acceptor;

    /** Listens on {@code port} of the loopback address (0: any free port). */
    public ShuttingDownPostgres(int port) throws IOException {
        server = new ServerSocket();
        server.setReuseAddress(true);
        server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
        acceptor = new Thread(this::serve, "shutting-down-postgres");
        acceptor.setDaemon(true);
        acceptor.start();
    }

    public int port() {
        return server.getLocalPort();
    }

    /** @return how many startup messages were answered with 57P03 so far */
    public int refused() {
        return refused.get();
    }

    private void serve() {
        while (!server.isClosed()) {
            try (Socket s = server.accept()) {
                refuse(s);
                refused.incrementAndGet();
            } catch (IOException e) {
                // closed, or a client that went away: next one
            }
        }
    }

    private static void refuse(Socket s) throws IOException {
        DataInputStream in = new DataInputStream(s.getInputStream());
        DataOutputStream out = new DataOutputStream(s.getOutputStream());
        while (true) {
            int length = in.readInt();
            int code = in.readInt();
            in.skipNBytes(length - 8L);
            if (code == SSL_REQUEST || code == GSSENC_REQUEST) {
                out.writeByte('N'); // no encryption; the client sends its startup message next
                out.flush();
                continue;
            }
            break; // the startup message
        }
        ByteArrayOutputStream fields = new ByteArrayOutputStream();
        field(fields, 'S', "FATAL");
        field(fields, 'V', "FATAL");
        field(fields, 'C', "57P03");
        field(fields, 'M', "the database system is shutting down");
        fields.write(0);
        out.writeByte('E');
        out.writeInt(4 + fields.size());
        out.write(fields.toByteArray());
        out.flush();
    }

    private static void field(ByteArrayOutputStream b, char type, String value) {
        b.write(type);
        b.writeBytes(value.getBytes(StandardCharsets.UTF_8));
        b.write(0);
    }

    /**
     * Stops listening; returns once the port is free (a socket closed while a thread accepts on it keeps its file
     * descriptor until that thread has left {@code accept}, so binding the port again right away could fail).
     */
    @Override
    public void close() throws IOException {
        server.close();
        try {
            acceptor.join(5000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}

package com.acme.catalog.testsupport;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A TCP forwarder from a loopback port to PostgreSQL that a test can cut (every connection dropped, new ones refused)
 * and mend (accepting again on the same port): an unreachable control store without touching the server.
 */
public final class CuttableProxy implements AutoCloseable {

    private final String targetHost;
    private final int targetPort;
    private final int port;
    private final List<Socket> open = new CopyOnWriteArrayList<>();
    private volatile ServerSocket server;
    private volatile Thread acceptor;

    public CuttableProxy(String targetHost, int targetPort) throws IOException {
        this.targetHost = targetHost;
        this.targetPort = targetPort;
        ServerSocket s = bind(0);
        this.port = s.getLocalPort();
        accept(s);
    }

    public int port() {
        return port;
    }

    /** Drops every proxied connection and refuses new ones; the port is free when it returns. */
    public synchronized void cut() throws IOException {
        server.close();
        try {
            // a socket closed while a thread accepts on it keeps its descriptor until that thread has left accept
            acceptor.join(5000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        for (Socket s : open) {
            s.close();
        }
        open.clear();
    }

    /** Accepts connections again. */
    public synchronized void mend() throws IOException {
        accept(bind(port));
    }

    private static ServerSocket bind(int port) throws IOException {
        ServerSocket s = new ServerSocket();
        s.setReuseAddress(true);
        s.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
        return s;
    }

    private void accept(ServerSocket s) {
        server = s;
        Thread t = new Thread(() -> {
            while (!s.isClosed()) {
                try {
                    Socket client = s.accept();
                    Socket upstream = new Socket(targetHost, targetPort);
                    open.add(client);
                    open.add(upstream);
                    pipe(client, upstream);
                    pipe(upstream, client);
                } catch (IOException closed) {
                    return;
                }
            }
        }, "proxy-accept");
        t.setDaemon(true);
        acceptor = t;
        t.start();
    }

    private static void pipe(Socket from, Socket to) {
        Thread t = new Thread(() -> {
            try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
                in.transferTo(out);
            } catch (IOException dropped) {
                // cut or closed
            } finally {
                try {
                    to.close();
                    from.close();
                } catch (IOException ignored) {
                    // closing anyway
                }
            }
        }, "proxy-pipe");
        t.setDaemon(true);
        t.start();
    }

    @Override
    public void close() throws IOException {
        cut();
    }
}

package com.acme.catalog.fault;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A loopback TCP proxy between two services that the fault suite can turn off: it passes connections to its targets
 * (round robin, skipping a target that refuses), or refuses them (new connections are reset at once, open ones are
 * reset), or stalls them (bytes stop flowing both ways, new connections are accepted and left hanging), and it can
 * reset every open connection once.
 */
final class FaultProxy implements AutoCloseable {

    enum Mode { PASS, REFUSE, STALL }

    private final String name;
    private final ServerSocket server;
    private final List<Integer> targets;
    private final Set<Socket> open = ConcurrentHashMap.newKeySet();
    private final ExecutorService pool = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r);
        t.setDaemon(true);
        return t;
    });
    private final AtomicInteger next = new AtomicInteger();
    final AtomicLong connections = new AtomicLong();
    final AtomicLong resets = new AtomicLong();
    private volatile Mode mode = Mode.PASS;
    private volatile boolean closed;

    FaultProxy(String name, List<Integer> targets) throws IOException {
        this.name = name;
        this.targets = List.copyOf(targets);
        this.server = new ServerSocket(0, 200, InetAddress.getLoopbackAddress());
        pool.execute(this::acceptLoop);
    }

    int port() {
        return server.getLocalPort();
    }

    String url() {
        return "http://127.0.0.1:" + port();
    }

    Mode mode() {
        return mode;
    }

    void set(Mode m) {
        mode = m;
        if (m == Mode.REFUSE) {
            resetAll();
        }
    }

    /** Resets (RST) every connection open now; new ones are served as the mode says. */
    void resetAll() {
        for (Socket s : open) {
            reset(s);
        }
    }

    private void acceptLoop() {
        while (!closed) {
            Socket client;
            try {
                client = server.accept();
            } catch (IOException e) {
                if (closed) {
                    return;
                }
                continue;
            }
            connections.incrementAndGet();
            if (mode == Mode.REFUSE) {
                reset(client);
                continue;
            }
            pool.execute(() -> serve(client));
        }
    }

    private void serve(Socket client) {
        open.add(client);
        try {
            while (mode == Mode.STALL && !closed) {
                Thread.sleep(50);
            }
            if (mode == Mode.REFUSE) {
                reset(client);
                return;
            }
            Socket upstream = connectUpstream();
            if (upstream == null) {
                reset(client);
                return;
            }
            open.add(upstream);
            client.setTcpNoDelay(true);
            upstream.setTcpNoDelay(true);
            pool.execute(() -> pump(upstream, client));
            pump(client, upstream);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            reset(client);
        } catch (IOException e) {
            reset(client);
        }
    }

    private Socket connectUpstream() {
        int start = Math.floorMod(next.getAndIncrement(), targets.size());
        for (int i = 0; i < targets.size(); i++) {
            int port = targets.get((start + i) % targets.size());
            Socket s = new Socket();
            try {
                s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 1000);
                return s;
            } catch (IOException e) {
                try {
                    s.close();
                } catch (IOException ignored) {
                    // nothing to close
                }
            }
        }
        return null;
    }

    private void pump(Socket from, Socket to) {
        byte[] buf = new byte[16384];
        try (InputStream in = from.getInputStream()) {
            OutputStream out = to.getOutputStream();
            while (true) {
                int n = in.read(buf);
                if (n < 0) {
                    break;
                }
                while (mode == Mode.STALL && !closed) {
                    Thread.sleep(50);
                }
                if (mode == Mode.REFUSE) {
                    break;
                }
                out.write(buf, 0, n);
                out.flush();
            }
        } catch (IOException | InterruptedException e) {
            // a reset or a closed peer: both sides go
        } finally {
            close(from);
            close(to);
        }
    }

    private void reset(Socket s) {
        resets.incrementAndGet();
        try {
            s.setSoLinger(true, 0);
        } catch (IOException ignored) {
            // already closed
        }
        close(s);
    }

    private void close(Socket s) {
        open.remove(s);
        try {
            s.close();
        } catch (IOException ignored) {
            // already closed
        }
    }

    @Override
    public void close() throws IOException {
        closed = true;
        server.close();
        resetAll();
        pool.shutdownNow();
    }

    @Override
    public String toString() {
        return name + "(" + mode + ")";
    }
}

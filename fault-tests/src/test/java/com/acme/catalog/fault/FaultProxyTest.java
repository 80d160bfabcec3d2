package com.acme.catalog.fault;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.util.List;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The fault suite's proxy: passes bytes, refuses, stalls and resets as told; the plan covers every fault kind. */
class FaultProxyTest {

    private ServerSocket echo;
    private FaultProxy proxy;

    @BeforeEach
    void start() throws IOException {
        echo = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread t = new Thread(() -> {
            while (!echo.isClosed()) {
                try {
                    Socket s = echo.accept();
                    new Thread(() -> {
                        try (s; InputStream in = s.getInputStream(); OutputStream out = s.getOutputStream()) {
                            in.transferTo(out);
                        } catch (IOException ignored) {
                            // closed
                        }
                    }).start();
                } catch (IOException e) {
                    return;
                }
            }
        });
        t.setDaemon(true);
        t.start();
        proxy = new FaultProxy("test", List.of(echo.getLocalPort()));
    }

    @AfterEach
    void stop() throws IOException {
        proxy.close();
        echo.close();
    }

    @Test
    void passesRefusesStallsAndResets() throws Exception {
        try (Socket s = connect()) {
            assertThat(roundTrip(s, "a")).isEqualTo("a");

            proxy.set(FaultProxy.Mode.STALL);
            s.getOutputStream().write('b');
            s.setSoTimeout(500);
            assertThatThrownBy(() -> s.getInputStream().read()).isInstanceOf(SocketTimeoutException.class);
            proxy.set(FaultProxy.Mode.PASS);
            s.setSoTimeout(5000);
            assertThat((char) s.getInputStream().read()).isEqualTo('b');

            proxy.resetAll();
            assertThatThrownBy(() -> {
                s.getOutputStream().write('c');
                s.getOutputStream().flush();
                if (s.getInputStream().read() < 0) {
                    throw new IOException("closed");
                }
            }).isInstanceOf(IOException.class);
        }
        proxy.set(FaultProxy.Mode.REFUSE);
        try (Socket s = connect()) {
            s.setSoTimeout(5000);
            assertThatThrownBy(() -> {
                s.getOutputStream().write('d');
                if (s.getInputStream().read() < 0) {
                    throw new IOException("closed");
                }
            }).isInstanceOf(IOException.class);
        }
        proxy.set(FaultProxy.Mode.PASS);
        try (Socket s = connect()) {
            assertThat(roundTrip(s, "e")).isEqualTo("e");
        }
    }

    @Test
    void aPlanHasEveryKindAndASeedReplaysIt() {
        List<Faults.Planned> plan = Faults.plan(42, 120_000, 4000);
        assertThat(plan).extracting(Faults.Planned::kind).contains(Faults.Kind.values());
        assertThat(Faults.plan(42, 120_000, 4000)).isEqualTo(plan);
        assertThat(Faults.plan(43, 120_000, 4000)).isNotEqualTo(plan);
        assertThat(Faults.plan(42, 20 * 60_000, 15_000).size()).isGreaterThan(plan.size());
    }

    private Socket connect() throws IOException {
        return new Socket(InetAddress.getLoopbackAddress(), proxy.port());
    }

    private static String roundTrip(Socket s, String text) throws IOException {
        s.setSoTimeout(5000);
        s.getOutputStream().write(text.getBytes());
        s.getOutputStream().flush();
        byte[] b = s.getInputStream().readNBytes(text.length());
        return new String(b);
    }
}

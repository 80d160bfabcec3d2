package com.acme.catalog.platform.web;

import java.io.IOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;

import com.acme.catalog.contracts.ProblemCode;

import org.apache.catalina.connector.Request;
import org.apache.catalina.connector.Response;
import org.apache.catalina.valves.ErrorReportValve;

/**
 * Tomcat's own error responses (a request it refuses before any filter runs: {@code %00} or {@code %5C} in the
 * path, a header over the size limit, a malformed request line) as problem+json instead of Tomcat's HTML page.
 * Installed as the host's error report valve ({@link SharedWebConfiguration}). The detail names the status only,
 * never Tomcat's internal message.
 */
public class ProblemJsonErrorReportValve extends ErrorReportValve {

    public ProblemJsonErrorReportValve() {
        setShowReport(false);
        setShowServerInfo(false);
    }

    @Override
    protected void report(Request request, Response response, Throwable throwable) {
        int status = response.getStatus();
        if (status < 400 || response.getContentWritten() > 0 || !response.setErrorReported()) {
            return;
        }
        ProblemCode code = codeFor(status);
        String detail = "the request was refused by the HTTP server (" + status + ")";
        String body = "{\"type\":\"urn:problem:" + code.name().toLowerCase().replace('_', '-') + "\",\"title\":\""
                + code.name() + "\",\"status\":" + status + ",\"code\":\"" + code.name() + "\",\"detail\":\""
                + detail + "\"}";
        try {
            response.setContentType(Problems.PROBLEM_JSON.toString());
            response.setCharacterEncoding(StandardCharsets.UTF_8.name());
            Writer writer = response.getReporter();
            if (writer != null) {
                writer.write(body);
                response.finishResponse();
            }
        } catch (IOException | IllegalStateException e) {
            // the connection is gone or the response was committed meanwhile: nothing more to say
        }
    }

    /** The contract code of a status Tomcat answers on its own: 400 is a request path or head it could not take. */
    static ProblemCode codeFor(int status) {
        return switch (status) {
            case 400 -> ProblemCode.INVALID_ID;
            case 404 -> ProblemCode.NOT_FOUND;
            case 405 -> ProblemCode.METHOD_NOT_ALLOWED;
            case 413 -> ProblemCode.PAYLOAD_TOO_LARGE;
            default -> status >= 500 ? ProblemCode.INTERNAL : ProblemCode.INVALID_BODY;
        };
    }
}

import type http from 'node:http';
import type { Duplex } from 'node:stream';
import { stringifyJson } from '../lib/json';

const REASONS: Record<string, [number, string, string, string]> = {
  HPE_HEADER_OVERFLOW: [431, 'Request Header Fields Too Large', 'HEADERS_TOO_LARGE', 'request line and headers are larger than the 16 KiB limit'],
  // Node's code when the headers or the whole request did not arrive within headersTimeout / requestTimeout.
  ERR_HTTP_REQUEST_TIMEOUT: [408, 'Request Timeout', 'REQUEST_TIMEOUT', 'the request did not arrive in time'],
};

/**
 * Answers requests Node's HTTP parser refuses (oversized headers or URL, malformed HTTP, timeouts) with a JSON error and
 * a graceful close. Node's default handler writes the status line and destroys the socket at once; when the client is
 * still sending (a 90 KB URL), the unread bytes make the kernel reset the connection and the client never sees the 431.
 * Here the rest of the request is read and discarded for up to 2 s so the answer arrives.
 */
export function answerClientErrors(server: http.Server): void {
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    if (error.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
      return;
    }
    const [status, reason, errorCode, message] = REASONS[error.code ?? ''] ?? [400, 'Bad Request', 'VALIDATION', 'malformed HTTP request'];
    const body = stringifyJson({ errorCode, errorMessage: message });
    socket.on('error', () => socket.destroy());
    socket.resume();
    socket.end(
      `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
    setTimeout(() => socket.destroy(), 2000).unref();
  });
}

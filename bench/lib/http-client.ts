import http from 'node:http';

/** `raw` as a URL, refused unless it names this machine: load generators never target anything else. */
export function localUrl(raw: string): URL {
  const url = new URL(raw);
  if (!['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname))
    throw new Error(`refusing to load ${url.hostname}: benchmarks only target this machine`);
  return url;
}

export interface JsonClient {
  /** Sends one request (with the client's headers, then `extra`) and returns its status and text; rejects on a network error only. */
  request(method: string, path: string, body?: string, extra?: Record<string, string>): Promise<{ status: number; text: string }>;
  close(): void;
}

/**
 * A keep-alive HTTP client for load loops that chain calls (autocannon cannot): node:http with one socket per
 * client. The load generator shares the machine's two cores with the stack it measures, and undici's fetch cost it
 * about 1.5 ms of CPU per call (a wallet operation's two calls: 3 ms, half what the API spent), so the loop slowed the
 * stack it was timing.
 */
export function jsonClient(baseUrl: string, options: { connections: number; headers: Record<string, string> }): JsonClient {
  const url = localUrl(baseUrl);
  const agent = new http.Agent({ keepAlive: true, maxSockets: options.connections });
  return {
    request(method, path, body, extra) {
      return new Promise((resolve, reject) => {
        const headers: Record<string, string | number> = { ...options.headers, ...extra };
        if (body !== undefined) headers['Content-Length'] = Buffer.byteLength(body);
        const req = http.request({ agent, host: url.hostname.replace(/^\[|\]$/g, ''), port: url.port, method, path, headers }, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
          res.on('error', reject);
        });
        req.on('error', reject);
        req.end(body);
      });
    },
    close: () => agent.destroy(),
  };
}

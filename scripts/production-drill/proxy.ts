import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * The load balancer in front of the API replicas: round robin, keep-alive to each upstream. A request whose upstream
 * refuses the connection goes to the next one, as a load balancer retries a request that never reached a backend;
 * a request cut after it was sent is answered 502, since it may have been processed (the client decides to retry).
 */
export async function startRoundRobinProxy(upstreams: Array<() => number>): Promise<{ url: string; port: number; close(): Promise<void> }> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
  let next = 0;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const attempt = (tried: number) => {
        const port = upstreams[next++ % upstreams.length]();
        const upstream = http.request({ host: '127.0.0.1', port, method: req.method, path: req.url, headers: req.headers, agent }, (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        });
        upstream.on('error', (error: NodeJS.ErrnoException) => {
          if (error.code === 'ECONNREFUSED' && tried + 1 < upstreams.length) return attempt(tried + 1);
          if (!res.headersSent)
            res
              .writeHead(502, { 'content-type': 'application/json' })
              .end(`{"errorCode":"BAD_GATEWAY","errorMessage":"${error.code ?? 'upstream error'}"}`);
          else res.destroy();
        });
        upstream.end(body);
      };
      attempt(0);
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    close: async () => {
      server.closeAllConnections();
      agent.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { createHttpServer, httpTimeouts, type HttpTimeouts } from '../../../api/http-server';
import { loadConfig } from '../../../lib/config';
import { apiUrl, fetchRetryingClosedConnection } from '../../support/http';
import { pollUntil } from '../../support/eventually';

/**
 * A connection left idle for `ms`. Not a wait for an event: these tests are about idle-time limits (a client's and a
 * server's keep-alive, the headers and request timeouts), so the gap between two requests is the input under test, and
 * nothing happens during it that a test could wait for. Each gap is chosen against the limit it straddles (below it,
 * near it on both sides, past it).
 */
const idle = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The API's server creation with `timeouts`, in this process, counting the TCP connections it accepts. */
async function startServer(timeouts: HttpTimeouts, connectionsCheckingInterval?: number) {
  const server = createHttpServer((_req, res) => res.end('ok'), timeouts, connectionsCheckingInterval ? { connectionsCheckingInterval } : {});
  let connections = 0;
  server.on('connection', () => (connections += 1));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    connections: () => connections,
    close: () => new Promise<void>((resolve) => (server.close(() => resolve()), server.closeAllConnections())),
  };
}

function get(url: string, agent: http.Agent): Promise<{ status: number; reused: boolean; keepAlive?: string }> {
  return new Promise((resolve, reject) => {
    const request = http.get(url, { agent }, (response) => {
      response.resume();
      response.on('end', () =>
        resolve({ status: response.statusCode ?? 0, reused: request.reusedSocket, keepAlive: String(response.headers['keep-alive']) }),
      );
    });
    request.on('error', reject);
  });
}

describe('HTTP keep-alive and timeouts', () => {
  it("keeps idle connections 65 s by default, longer than a load balancer's 60 s, and reads overrides from the environment", async () => {
    expect(httpTimeouts(loadConfig({}))).toEqual({ keepAliveTimeout: 65_000, headersTimeout: 20_000, requestTimeout: 120_000 });
    expect(
      httpTimeouts(loadConfig({ HTTP_KEEP_ALIVE_TIMEOUT_MS: '350000', HTTP_HEADERS_TIMEOUT_MS: '10000', HTTP_REQUEST_TIMEOUT_MS: '30000' })),
    ).toEqual({ keepAliveTimeout: 350_000, headersTimeout: 10_000, requestTimeout: 30_000 });
    expect(() => loadConfig({ HTTP_KEEP_ALIVE_TIMEOUT_MS: '5s' })).toThrow(
      /HTTP_KEEP_ALIVE_TIMEOUT_MS must be an integer ≥ 1 \(milliseconds\), got "5s"/,
    );
    expect(() => loadConfig({ HTTP_HEADERS_TIMEOUT_MS: '200000' })).toThrow(/must not exceed HTTP_REQUEST_TIMEOUT_MS/);

    // The run's API (started as `npm start` starts it) announces its keep-alive timeout to clients.
    const agent = new http.Agent({ keepAlive: true });
    const answer = await get(`${apiUrl()}/_healthcheck`, agent);
    agent.destroy();
    expect(answer).toMatchObject({ status: 200, keepAlive: 'timeout=65' });
  });

  it("never resets a client whose idle timeout is below the server's, over many requests with idle gaps around it", async () => {
    const timeouts = { keepAliveTimeout: 3000, headersTimeout: 1000, requestTimeout: 2000 };
    const [agentServer, fetchServer] = [await startServer(timeouts), await startServer(timeouts)];
    // Node's agent closes an idle socket after `timeout` (400 ms here), below the server's 3 s; it tells which
    // requests went out on a reused socket.
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1, timeout: 400 });
    const failures: unknown[] = [];
    const viaAgent = async () => {
      const results: Array<{ status: number; reused: boolean }> = [];
      const gaps = [150, 300, 380, 420, 500, 700];
      for (let i = 0; i < 36; i += 1) {
        await get(agentServer.url, agent).then(
          (result) => results.push(result),
          (error) => failures.push(error),
        );
        await idle(gaps[i % gaps.length]);
      }
      return results;
    };
    // undici, the fetch of the tests, keeps a socket for the server's `Keep-Alive: timeout=3` less 2 s: 1 s.
    const viaFetch = async () => {
      const statuses: number[] = [];
      for (const gap of [200, 700, 2500, 100, 600, 2500, 300, 900, 2500, 0]) {
        const status = await fetch(fetchServer.url).then(
          async (response) => (await response.text(), response.status),
          (error) => (failures.push(error), 0),
        );
        statuses.push(status);
        await idle(gap);
      }
      return statuses;
    };
    try {
      const [agentResults, fetchStatuses] = await Promise.all([viaAgent(), viaFetch()]);
      expect(failures).toEqual([]);
      expect(agentResults.map((r) => r.status)).toEqual(new Array(36).fill(200));
      expect(fetchStatuses).toEqual(new Array(10).fill(200));
      // Both sides of each client's idle boundary were crossed: sockets reused, and new ones opened after idling.
      const reused = agentResults.filter((r) => r.reused).length;
      expect(reused).toBeGreaterThan(5);
      expect(agentServer.connections()).toBe(36 - reused);
      expect(agentServer.connections()).toBeGreaterThan(5);
      expect(fetchServer.connections()).toBeGreaterThanOrEqual(4);
      expect(fetchServer.connections()).toBeLessThan(10);
    } finally {
      agent.destroy();
      await Promise.all([agentServer.close(), fetchServer.close()]);
    }
  });

  it('lets a kept-alive connection idle past the headers timeout (so it may stay short) and still times out slow headers', async () => {
    const server = await startServer({ keepAliveTimeout: 3000, headersTimeout: 500, requestTimeout: 1000 }, 100);
    const socket = net.connect(Number(new URL(server.url).port), '127.0.0.1');
    let received = '';
    socket.on('data', (chunk) => (received += chunk));
    const answers = () => received.match(/HTTP\/1\.1 \d+/g) ?? [];
    try {
      socket.write('GET / HTTP/1.1\r\nHost: x\r\n\r\n');
      await idle(1200); // more than the headers and the request timeouts (and a check interval): the behaviour under test
      socket.write('GET / HTTP/1.1\r\nHost: x\r\n\r\n');
      await pollUntil(answers, (list) => list.length >= 2, { timeoutMs: 5000, intervalMs: 20, what: 'the second answer' });
      expect(answers()).toEqual(['HTTP/1.1 200', 'HTTP/1.1 200']);

      const slow = net.connect(Number(new URL(server.url).port), '127.0.0.1');
      let slowAnswer = '';
      slow.on('data', (chunk) => (slowAnswer += chunk));
      slow.write('GET / HTTP/1.1\r\nHost: x\r\n'); // headers never finished
      await new Promise((resolve) => slow.on('close', resolve));
      expect(slowAnswer).toMatch(
        /^HTTP\/1\.1 408 Request Timeout\r\n[^]*\{"errorCode":"REQUEST_TIMEOUT","errorMessage":"the request did not arrive in time"\}$/,
      );
    } finally {
      socket.destroy();
      await server.close();
    }
  });

  it("has the tests' fetch send a repeatable request again, once, when its connection closes unanswered", async () => {
    let requests = 0;
    // The first request of each pair finds its connection closed without an answer, as in the keep-alive race.
    const server = http.createServer((req, res) => (++requests % 2 === 1 ? req.socket.destroy() : res.end('ok')));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    try {
      const get = await fetchRetryingClosedConnection(url);
      expect([get.status, await get.text(), requests]).toEqual([200, 'ok', 2]);
      await expect(fetchRetryingClosedConnection(url, { method: 'POST', body: 'x' })).rejects.toMatchObject({ cause: { code: 'UND_ERR_SOCKET' } });
      expect(requests).toBe(3);
      const token = await fetchRetryingClosedConnection(url, { method: 'POST', body: 'x' }, true);
      expect([token.status, requests]).toEqual([200, 4]);
    } finally {
      await new Promise((resolve) => (server.close(resolve), server.closeAllConnections()));
    }
  });
});

import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { RunningPlatform } from '../../scripts/stack/platform';

/**
 * Lets a test take the worker down and bring it back (jest runs test files in a separate VM context, so they cannot
 * reach the platform object of the global setup). Listens on 127.0.0.1 only, on a free port given to tests as
 * TEST_PLATFORM_CONTROL_URL:
 * - POST /worker/freeze: SIGSTOP, the worker stops consuming Temporal tasks and outbox notifications;
 * - POST /worker/restart: SIGKILL (frozen or not) and a fresh worker process, as after a crash.
 */
export async function startPlatformControl(platform: RunningPlatform): Promise<string> {
  const server = http.createServer((request, response) => {
    const act = async () => {
      if (request.method === 'POST' && request.url === '/worker/freeze') platform.worker.child().kill('SIGSTOP');
      else if (request.method === 'POST' && request.url === '/worker/restart') await platform.worker.restart('SIGKILL');
      else return 404;
      return 204;
    };
    act().then(
      (status) => response.writeHead(status).end(),
      (error) => response.writeHead(500).end(String(error)),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  server.unref();
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** Calls the control server from a test. */
export async function controlWorker(action: 'freeze' | 'restart'): Promise<void> {
  const response = await fetch(`${process.env.TEST_PLATFORM_CONTROL_URL}/worker/${action}`, { method: 'POST' });
  if (response.status !== 204) throw new Error(`worker ${action} failed: ${response.status} ${await response.text()}`);
}

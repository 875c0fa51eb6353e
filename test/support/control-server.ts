import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { RunningPlatform } from '../../scripts/stack/platform';
import { pollUntil } from './eventually';

/** Linux's one-letter state of a process (`T`: stopped by a signal), the third field of /proc/<pid>/stat. */
const processState = (pid: number): string => fs.readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /s, '')[0];

/**
 * A tiny HTTP control plane on 127.0.0.1 that lets test files (which run in their own module registry) stop, start and
 * kill the run's worker and API processes: `POST /<api|worker>/<stop|start|restart|kill|freeze>`.
 */
export async function startControlServer(platform: RunningPlatform): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    const [, name, action] = (req.url ?? '').split('/');
    const target = name === 'api' ? platform.api : name === 'worker' ? platform.worker : undefined;
    const run = async () => {
      if (!target || req.method !== 'POST') throw new Error('unknown control');
      if (action === 'stop') await target.stop();
      else if (action === 'start') target.start();
      else if (action === 'restart') await target.restart('SIGTERM');
      else if (action === 'kill') await target.restart('SIGKILL');
      // SIGSTOP: the process stays but consumes nothing (no Temporal tasks, no outbox notifications), like a hung host.
      // Answered once the kernel shows it stopped, so a test may rely on it from the answer on.
      else if (action === 'freeze') {
        const child = target.child();
        child.kill('SIGSTOP');
        await pollUntil(
          () => processState(child.pid as number),
          (state) => state === 'T',
          { timeoutMs: 10_000, intervalMs: 5, what: `process ${child.pid} to stop` },
        );
      } else throw new Error('unknown action');
    };
    run().then(
      () => res.writeHead(204).end(),
      (error: Error) => res.writeHead(400).end(error.message),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';

/**
 * stripe-mock's path, from scripts/setup-stripe-mock.sh: STRIPE_MOCK_BIN, the copy cached in .tools/bin, or a fresh
 * `go install` of the pinned version there (seconds, once per machine), so `npm test` needs no setup step of its own.
 * Undefined when none works (no Go and no module proxy): the Stripe tests then fail naming the script.
 */
export function stripeMockBinary(): string | undefined {
  try {
    return execFileSync('bash', [path.resolve(__dirname, '../../scripts/setup-stripe-mock.sh')], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
    }).trim();
  } catch {
    return undefined;
  }
}

export interface RunningStripeMock {
  url: string;
  stop: () => Promise<void>;
}

/**
 * Starts Stripe's mock API server on free 127.0.0.1 ports (HTTP and HTTPS both: left alone, HTTPS would bind every
 * interface on a fixed port) and resolves with its HTTP URL once it listens. Undefined when no binary could be had: the
 * Stripe tests then fail with a message naming the setup script.
 */
export async function startStripeMock(): Promise<RunningStripeMock | undefined> {
  const binary = stripeMockBinary();
  if (!binary) return undefined;
  const child: ChildProcess = spawn(binary, ['-http-addr', '127.0.0.1:', '-https-addr', '127.0.0.1:'], { stdio: ['ignore', 'pipe', 'pipe'] });
  const url = await new Promise<string>((resolve, reject) => {
    let output = '';
    const timer = setTimeout(() => reject(new Error(`stripe-mock did not listen within 60 s: ${output}`)), 60_000);
    const read = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /Listening for HTTP at address: (\S+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(`http://${match[1]}`);
      }
    };
    child.stdout!.on('data', read);
    child.stderr!.on('data', read);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`stripe-mock exited (${code}) before listening: ${output}`));
    });
  });
  child.stdout!.resume();
  child.stderr!.resume();
  return {
    url,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

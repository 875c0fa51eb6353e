import { spawn } from 'node:child_process';
import path from 'node:path';
import readline from 'node:readline';
import { tokenFor, type BenchPlatform } from './platform';

/**
 * A second platform, started from another checkout's code (`dir`, e.g. a worktree of the previous commit with its own
 * node_modules), on its own PostgreSQL and Temporal: what a side-by-side comparison measures against. Both platforms
 * stay up for the whole comparison and are loaded one at a time, in interleaved rounds.
 */
export async function basePlatform(dir: string, env: NodeJS.ProcessEnv): Promise<BenchPlatform> {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(__dirname, 'base-platform-child.ts'), dir, JSON.stringify(env)], {
    cwd: dir,
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const exited = new Promise<never>((_, reject) => child.once('exit', (code) => reject(new Error(`the base platform (${dir}) exited with ${code}`))));
  const line = await Promise.race([
    new Promise<string>((resolve) => readline.createInterface({ input: child.stdout! }).once('line', resolve)),
    exited,
  ]);
  const started = JSON.parse(line) as {
    apiUrl: string;
    databaseUrl: string;
    temporalAddress: string;
    dataDir: string;
    credentials: { clientId: string; clientSecret: string };
  };
  return {
    ...started,
    taskQueue: 'financial-platform',
    token: tokenFor(started.apiUrl, started.credentials),
    async stop() {
      const done = new Promise((resolve) => child.once('exit', resolve));
      child.stdin!.end();
      await done;
    },
  };
}

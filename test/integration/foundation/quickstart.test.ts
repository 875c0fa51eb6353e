import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { apiUrl } from '../../support/http';
import { adminCredentials, clientToken } from '../../support/oauth';
import { testTempDir } from '../../support/temp-dir';
import { closedPort } from '../../support/webhook-receiver';

/**
 * docs/quickstart.md runs as written: its ```sh blocks, in order, in one bash with `set -euo pipefail`, against the test
 * platform, with the token the doc's first block would get from `npm run token`. Every curl there uses -f, so a non-2xx
 * answer fails its block; the doc cannot drift from the API.
 */
const DOC = path.join(__dirname, '../../../docs/quickstart.md');

function shBlocks(markdown: string): string[] {
  return [...markdown.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((match) => match[1]);
}

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
  finished: number[];
}

async function runBlocks(blocks: string[], env: NodeJS.ProcessEnv, cwd: string): Promise<Run> {
  const marks = path.join(cwd, 'finished-blocks');
  const script = ['set -euo pipefail', ...blocks.map((block, i) => `${block}\necho ${i} >> ${JSON.stringify(marks)}`)].join('\n');
  // A process group of its own, so what the doc starts in the background can be stopped with it.
  const child = spawn('bash', ['-c', script], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  // 'exit', not 'close': the doc's webhook receiver runs in the background and holds bash's stdout until it stops.
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (exitCode) => resolve(exitCode));
  });
  // The receiver stops after its POST; after a failed run it may still wait for it.
  try {
    process.kill(-child.pid!, 'SIGTERM');
  } catch {
    // The group is gone: nothing was left running.
  }
  child.stdout.destroy();
  child.stderr.destroy();
  const finished = fs.existsSync(marks) ? fs.readFileSync(marks, 'utf8').split('\n').filter(Boolean).map(Number) : [];
  return { code, stdout, stderr, finished };
}

describe('docs/quickstart.md', () => {
  const blocks = shBlocks(fs.readFileSync(DOC, 'utf8'));

  it('has a block per area, every curl failing on a non-2xx answer', () => {
    expect(blocks.length).toBeGreaterThanOrEqual(7);
    const curls = blocks.flatMap((block) => block.match(/\bcurl\b.*/g) ?? []);
    expect(curls.length).toBeGreaterThan(20);
    expect(curls.filter((line) => !/\bcurl -fsS\b/.test(line))).toEqual([]);
  });

  it('runs as written against the platform', async () => {
    const cwd = testTempDir('quickstart-');
    const env = {
      ...process.env,
      API: apiUrl(),
      TOKEN: await clientToken(...adminCredentials()),
      DATA_DIR: process.env.TEST_PLATFORM_DATA_DIR,
      HOOK_PORT: String(await closedPort()),
    };
    const run = await runBlocks(blocks, env, cwd);
    const failed = blocks.findIndex((_block, i) => !run.finished.includes(i));
    const report = failed < 0 ? 'every block ran' : `block ${failed} failed:\n${blocks[failed]}\nstderr:\n${run.stderr}\nstdout:\n${run.stdout}`;
    expect(report).toBe('every block ran');
    expect(run.code).toBe(0);
    // What the blocks print is what the doc promises: a workflow run that ended without error, a test webhook that the
    // receiver printed and answered.
    expect(run.stdout).toMatch(/"terminated": true,\s*"error": null/);
    expect(run.stdout).toContain('{"data":"test"}');
    expect(run.stdout).toMatch(/"statusCode": 200,\s*"error": null/);
  }, 240_000);
});

import { spawn, execFile, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { Connection } from '@temporalio/client';
import { freePort, isPortFree } from '../../../scripts/stack/ports';
import { pollUntil } from '../../support/eventually';
import { testTempDir } from '../../support/temp-dir';
import { groupExited } from '../../support/process-group';

const root = path.resolve(__dirname, '../../..');
const run = promisify(execFile);

/**
 * `npm start` as a newcomer and an operator use it, in a process group of its own (as a detached run or a service
 * manager starts it): a second shell finds it without repeating its settings, it says it is up only once the worker
 * polls, and a SIGTERM sent to npm alone stops every part, as Ctrl-C does.
 */
describe('npm start', () => {
  let dataDir: string;
  let child: ChildProcess;
  let output = '';
  let ports: { api: number; postgres: number; temporal: number; ui: number; workerMetrics: number; temporalMetrics: number };
  let runFile: string;
  // Only what the platform needs: the settings a second shell would not have (DATA_DIR, PORT) are left out of it.
  const baseEnv = () => {
    const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: process.env.HOME, RUN_FILE: runFile, LOG_LEVEL: 'warn' };
    if (process.env.TEMPORAL_CLI) env.TEMPORAL_CLI = process.env.TEMPORAL_CLI;
    return env;
  };

  beforeAll(async () => {
    dataDir = testTempDir('npm-start-test-');
    runFile = path.join(dataDir, 'run', 'npm-start.json');
    ports = {
      api: await freePort(),
      postgres: await freePort(),
      temporal: await freePort(),
      ui: await freePort(),
      workerMetrics: await freePort(),
      temporalMetrics: await freePort(),
    };
    child = spawn('npm', ['start'], {
      cwd: root,
      detached: true,
      env: {
        ...baseEnv(),
        DATA_DIR: dataDir,
        PORT: String(ports.api),
        EMBEDDED_POSTGRES_PORT: String(ports.postgres),
        TEMPORAL_PORT: String(ports.temporal),
        TEMPORAL_UI_PORT: String(ports.ui),
        WORKER_METRICS_PORT: String(ports.workerMetrics),
        TEMPORAL_METRICS_PORT: String(ports.temporalMetrics),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout?.on('data', (chunk) => (output += chunk));
    child.stderr?.on('data', (chunk) => (output += chunk));
    await pollUntil(
      () => output,
      (text) => /is up/.test(text) || child.exitCode !== null,
      { timeoutMs: 120_000, intervalMs: 250, what: 'npm start to be up' },
    );
    if (!/is up/.test(output)) throw new Error(`npm start failed:\n${output}`);
  }, 150_000);

  afterAll(async () => {
    // Whatever the test did, nothing it started may outlive it.
    if (child.pid) {
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        /* already gone */
      }
    }
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it("prints its metrics endpoints, the worker's on the ports it was given", async () => {
    const worker = `http://127.0.0.1:${ports.workerMetrics}/metrics`;
    expect(output).toContain(`http://127.0.0.1:${ports.api}/metrics (API)`);
    expect(output).toContain(`${worker} (worker)`);
    expect(output).toContain(`http://127.0.0.1:${ports.temporalMetrics}/metrics (Temporal SDK)`);
    const response = await fetch(worker);
    expect(response.status).toBe(200);
    expect(await response.text()).toMatch(/^events_outbox_backlog \d+$/m);
  });

  it('is up only once a worker polls the task queue', async () => {
    const connection = await Connection.connect({ address: `127.0.0.1:${ports.temporal}` });
    try {
      const described = await connection.workflowService.describeTaskQueue({
        namespace: 'default',
        taskQueue: { name: 'financial-platform' },
        taskQueueType: 1,
      });
      expect(described.pollers?.length).toBeGreaterThan(0);
    } finally {
      await connection.close();
    }
  });

  it('records where it runs, so `npm run token` works from a shell without DATA_DIR or PORT', async () => {
    const recorded = JSON.parse(fs.readFileSync(runFile, 'utf8'));
    expect(recorded).toMatchObject({ apiUrl: `http://127.0.0.1:${ports.api}`, dataDir });
    expect(fs.statSync(runFile).mode & 0o777).toBe(0o600);
    const { stdout } = await run('npm', ['run', '-s', 'token'], { cwd: root, env: baseEnv() });
    const token = stdout.trim();
    expect(token.split('.')).toHaveLength(3);
    const response = await fetch(`http://127.0.0.1:${ports.api}/api/ledger/v2`, { headers: { Authorization: `Bearer ${token}` } });
    expect(response.status).toBe(200);
  });

  it('stops everything it started when npm alone receives SIGTERM', async () => {
    process.kill(child.pid as number, 'SIGTERM');
    await pollUntil(
      async () => [await isPortFree(ports.api), await isPortFree(ports.postgres), await isPortFree(ports.temporal), await isPortFree(ports.ui)],
      (free) => free.every(Boolean),
      { timeoutMs: 60_000, intervalMs: 250, what: 'the API, PostgreSQL, Temporal and its UI to stop listening' },
    );
    // No process of the group is left (the worker has no port of its own).
    await groupExited(child.pid as number, 'every process of the npm start group to exit');
    expect(fs.existsSync(runFile)).toBe(false);
    expect(output).toMatch(/stopped\./);
  });
});

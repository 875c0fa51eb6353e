import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { Connection } from '@temporalio/client';
import { searchAttributeFlags } from '../../lib/search-attributes';

const ROOT = path.resolve(__dirname, '..', '..');

/**
 * Runs scripts/setup-temporal.sh, which finds, caches or installs the Temporal CLI, and resolves to its path. Async, so
 * PostgreSQL keeps starting (and Ctrl-C keeps working) during a first-time download.
 */
export function ensureTemporalCli(log: (line: string) => void = () => undefined): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', [path.join(ROOT, 'scripts', 'setup-temporal.sh')], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      chunk.toString().split('\n').filter(Boolean).forEach(log);
    });
    child.once('error', reject);
    // 'close', not 'exit': under load 'exit' can come before the last stdout chunk, which carries the path.
    child.once('close', (code) => {
      const cli = stdout.trim().split('\n').pop();
      if (code === 0 && cli) resolve(cli);
      else reject(new Error(`could not obtain the Temporal CLI (exit ${code}):\n${stderr}`));
    });
  });
}

export interface RunningTemporal {
  address: string;
  uiUrl?: string;
  readonly process: ChildProcess;
  stop(): Promise<void>;
  /** Starts the server again after stop(), same port and SQLite file (fault drills); resolves once it answers. */
  start(): Promise<void>;
}

/**
 * Starts `temporal server start-dev`: the real Temporal server in one process, with a SQLite file (so workflows survive
 * a restart) or in memory, the platform's search attributes, and the Web UI unless headless. Resolves once it answers.
 */
export async function startTemporalDevServer(options: {
  cli: string;
  port: number;
  uiPort?: number;
  dbFile?: string;
  namespace: string;
  log?: (line: string) => void;
}): Promise<RunningTemporal> {
  if (options.dbFile) fs.mkdirSync(path.dirname(options.dbFile), { recursive: true });
  const args = [
    'server',
    'start-dev',
    '--ip',
    '127.0.0.1',
    '--port',
    String(options.port),
    '--namespace',
    options.namespace,
    '--log-level',
    'error',
    '--dynamic-config-value',
    'frontend.enableUpdateWorkflowExecution=true',
    // Eager activities: the server hands an activity scheduled by a workflow task straight back to the worker that
    // completed it, instead of through a poll; orchestration stages and webhook sends each save a round trip.
    '--dynamic-config-value',
    'system.enableActivityEagerExecution=true',
    // The history service reads its new transfer tasks (e.g. "hand this workflow task to matching") at most 20 times a
    // second by default: a new workflow then waited 0-50 ms for its first workflow task (measured: 20-35 ms between
    // scheduled and started; 4-6 ms with this). Timer tasks (activity retries, delays) get the same treatment.
    '--dynamic-config-value',
    'history.transferProcessorMaxPollRPS=1000',
    '--dynamic-config-value',
    'history.timerProcessorMaxPollRPS=1000',
    // One task queue partition instead of four: with one worker process, a task written to a partition whose poller is
    // busy waited ~2 s to be forwarded (seen as a 2.1 s p99 on no-op workflows at 16 concurrent runs; gone with this).
    // A cluster with many workers keeps its partitions: see Production.
    '--dynamic-config-value',
    'matching.numTaskqueueReadPartitions=1',
    '--dynamic-config-value',
    'matching.numTaskqueueWritePartitions=1',
    // WAL with synchronous=NORMAL survives a crash of the server process (what the drills do) and only risks the last
    // commits on a power loss, which a development server accepts; FULL costs an fsync per history write.
    ...(options.dbFile ? ['--db-filename', options.dbFile, '--sqlite-pragma', 'journal_mode=WAL', '--sqlite-pragma', 'synchronous=NORMAL'] : []),
    ...(options.uiPort ? ['--ui-port', String(options.uiPort), '--ui-ip', '127.0.0.1'] : ['--headless']),
    ...searchAttributeFlags().flatMap((flag) => ['--search-attribute', flag]),
  ];
  const forward = (chunk: Buffer) =>
    chunk
      .toString()
      .split('\n')
      .filter(Boolean)
      .forEach((line) => options.log?.(line));
  const address = `127.0.0.1:${options.port}`;
  const launch = async () => {
    const started = spawn(options.cli, args, { stdio: ['ignore', 'pipe', 'pipe'], detached: false });
    started.stdout?.on('data', forward);
    started.stderr?.on('data', forward);
    try {
      await waitForTemporal(address, started, 60_000);
    } catch (error) {
      await stopChild(started, 5_000);
      throw error;
    }
    return started;
  };
  let child = await launch();
  return {
    address,
    uiUrl: options.uiPort ? `http://127.0.0.1:${options.uiPort}` : undefined,
    get process() {
      return child;
    },
    stop: () => stopChild(child, 10_000),
    start: async () => {
      if (child.exitCode === null && child.signalCode === null) return;
      child = await launch();
    },
  };
}

export async function waitForTemporal(address: string, child: ChildProcess | undefined, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  while (Date.now() < deadline) {
    if (child && child.exitCode !== null) throw new Error(`temporal server exited with code ${child.exitCode}`);
    try {
      const connection = await Connection.connect({ address, connectTimeout: '1s' });
      try {
        await connection.workflowService.getSystemInfo({});
        return;
      } finally {
        await connection.close();
      }
    } catch (error) {
      lastError = error;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
  throw new Error(`Temporal at ${address} did not answer within ${timeoutMs} ms: ${String(lastError)}`);
}

/**
 * Waits until a worker polls the task queue for workflow tasks. The API answering its health check says nothing about
 * the worker: until it polls, a workflow started by a request would sit unscheduled, so "the platform is up" waits
 * for this too. Temporal records a poller as soon as its first long poll arrives.
 */
export async function waitForWorkerPolling(
  address: string,
  namespace: string,
  taskQueue: string,
  timeoutMs: number,
  signal?: AbortSignal,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  const connection = await Connection.connect({ address, connectTimeout: '2s' });
  try {
    while (Date.now() < deadline) {
      signal?.throwIfAborted();
      const described = await connection.workflowService
        .describeTaskQueue({ namespace, taskQueue: { name: taskQueue }, taskQueueType: 1 /* TASK_QUEUE_TYPE_WORKFLOW */ })
        .catch(() => undefined);
      if ((described?.pollers?.length ?? 0) > 0) return;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  } finally {
    await connection.close();
  }
  throw new Error(`no worker polled task queue ${taskQueue} within ${timeoutMs} ms (see the worker's log lines)`);
}

/** SIGTERM, then SIGKILL after `graceMs`: a child must never outlive the process that started it. */
export function stopChild(child: ChildProcess, graceMs: number): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { stopChild } from './temporal';

const ROOT = path.resolve(__dirname, '..', '..');

export interface ManagedProcess {
  readonly name: string;
  readonly child: () => ChildProcess;
  stop(): Promise<void>;
  /** Kills the process (SIGKILL by default) and starts it again (used by crash tests and drills). */
  restart(signal?: NodeJS.Signals): Promise<void>;
  /** Starts the process again after stop(). */
  start(): void;
}

/**
 * Runs one of the platform's TypeScript entry points (api/server.ts, activities/worker.ts) as a child Node process,
 * restarting it when it dies unexpectedly: the supervisor keeps the local platform up the way an orchestrator would.
 */
export function runNodeProcess(options: {
  name: string;
  entry: string;
  env: NodeJS.ProcessEnv;
  output: (name: string, line: string) => void;
  restartOnCrash?: boolean;
}): ManagedProcess {
  let current: ChildProcess;
  let stopping = false;
  let crashes = 0;

  const start = () => {
    // PLATFORM_NODE_ARGS: extra Node flags for the API and worker, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof` to
    // profile them under a benchmark (Node refuses --cpu-prof in NODE_OPTIONS).
    const extra = (options.env.PLATFORM_NODE_ARGS ?? '').split(' ').filter(Boolean);
    current = spawn(process.execPath, [...extra, '--import', 'tsx', path.join(ROOT, options.entry)], {
      cwd: ROOT,
      env: options.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const forward = (chunk: Buffer) =>
      chunk
        .toString()
        .split('\n')
        .filter(Boolean)
        .forEach((line) => options.output(options.name, line));
    current.stdout?.on('data', forward);
    current.stderr?.on('data', forward);
    const self = current;
    current.once('exit', (code, signal) => {
      if (stopping || self !== current) return;
      options.output(options.name, `exited (code ${code}, signal ${signal})`);
      if (options.restartOnCrash !== false && crashes < 20) {
        crashes += 1;
        setTimeout(() => !stopping && start(), Math.min(500 * crashes, 5000));
      }
    });
  };
  start();

  return {
    name: options.name,
    child: () => current,
    stop: async () => {
      stopping = true;
      await stopChild(current, 10_000);
    },
    start: () => {
      stopping = false;
      if (current.exitCode !== null || current.signalCode !== null) start();
    },
    restart: async (signal: NodeJS.Signals = 'SIGKILL') => {
      const old = current;
      const exited = new Promise((resolve) => old.once('exit', resolve));
      stopping = true;
      old.kill(signal);
      await exited;
      stopping = false;
      start();
    },
  };
}

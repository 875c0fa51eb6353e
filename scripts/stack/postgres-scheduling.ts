import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';

export type PostgresScheduling = 'batch' | 'normal';

/** The value of `policy` in /proc/<pid>/stat for SCHED_BATCH (sched.h). */
export const SCHED_BATCH = 3;

/**
 * Reads EMBEDDED_POSTGRES_SCHEDULING: `batch` (the default) or `normal`. Anything else stops the start, as every
 * malformed setting does.
 */
export function postgresSchedulingFromEnv(env: NodeJS.ProcessEnv): PostgresScheduling {
  const value = env.EMBEDDED_POSTGRES_SCHEDULING || 'batch';
  if (value !== 'batch' && value !== 'normal') throw new Error(`EMBEDDED_POSTGRES_SCHEDULING must be batch or normal, not ${JSON.stringify(value)}`);
  return value;
}

/**
 * Puts the embedded PostgreSQL under Linux's SCHED_BATCH policy: the postmaster and the processes it has forked so
 * far, and through inheritance every backend it forks later.
 *
 * Why: the embedded server shares the machine's cores with the API, the worker and whatever loads them. When the API
 * sends a statement, the write wakes the backend, and a normal wakee may preempt the waker on its core, in the middle
 * of its send: the API then waits for the statement to run before it finishes the write and reads the next requests,
 * so API and PostgreSQL take turns on one core. A SCHED_BATCH task never preempts on wakeup; it runs when the API
 * blocks or its slice ends, with the same CPU share. On the 2-core bench machine the read by txid served 15-20% more
 * requests per second with it (docs/benchmarks.md). A PostgreSQL given by DATABASE_URL is the operator's to tune and
 * is never touched.
 *
 * Best effort: off Linux, or without util-linux's chrt, the server runs under the normal policy and `log` says so.
 */
export function scheduleEmbeddedPostgres(databaseDir: string, log: (line: string) => void): void {
  if (process.platform !== 'linux') return;
  let postmaster: number;
  try {
    postmaster = Number(fs.readFileSync(path.join(databaseDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
  } catch (error) {
    log(`SCHED_BATCH not set: no postmaster.pid (${error})`);
    return;
  }
  applyBatchScheduling(postmaster, log);
}

/** Sets SCHED_BATCH on a process, all its threads and its children; each later fork inherits it. */
export function applyBatchScheduling(pid: number, log: (line: string) => void): void {
  for (const target of [pid, ...childrenOf(pid)]) {
    try {
      execFileSync('chrt', ['--batch', '--all-tasks', '--pid', '0', String(target)], { stdio: 'ignore' });
    } catch (error) {
      // A child may have exited since it was listed; only the postmaster's own policy matters for later backends.
      if (target === pid) log(`SCHED_BATCH not set on PostgreSQL (pid ${pid}): ${(error as Error).message}`);
    }
  }
}

/** The scheduling policy of a process (its `policy` field in /proc/<pid>/stat), or undefined once it has exited. */
export function schedulingPolicyOf(pid: number): number | undefined {
  try {
    return Number(statFields(pid)[38]);
  } catch {
    return undefined;
  }
}

/** Fields of /proc/<pid>/stat after the command name (which may hold spaces): [0] is the state, [1] the parent. */
function statFields(pid: number): string[] {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
}

/** Processes whose parent is `parent`, read from /proc. */
export function childrenOf(parent: number): number[] {
  const children: number[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (Number(statFields(Number(entry))[1]) === parent) children.push(Number(entry));
    } catch {
      // Exited while the directory was read.
    }
  }
  return children;
}

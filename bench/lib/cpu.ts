import fs from 'node:fs';

/** CPU seconds used so far by each process of the stack this process started (`<part>#<pid>`) and by itself (`bench`). */
export type CpuSnapshot = Map<string, number>;

const TICKS_PER_SECOND = 100; // USER_HZ on Linux

/** Which part of the platform a process is, from its command line. */
function partOf(cmdline: string): string {
  if (cmdline.includes('api/server.ts')) return 'api';
  if (cmdline.includes('bench/servers/')) return 'hello-world';
  if (cmdline.includes('worker.ts')) return 'worker';
  if (cmdline.includes('temporal')) return 'temporal';
  if (cmdline.includes('postgres')) return 'postgres';
  return 'other';
}

/** The fields of /proc/<pid>/stat after the parenthesised command name: state ppid ... utime(14) stime(15), 1-based in proc(5). */
function statFields(stat: string): string[] {
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
}

/** User and system CPU seconds one process has used so far (Linux /proc; 0 elsewhere or once it has exited). */
export function processCpuSeconds(pid: number): number {
  try {
    const fields = statFields(fs.readFileSync(`/proc/${pid}/stat`, 'utf8'));
    return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
  } catch {
    return 0;
  }
}

function readProcesses(): Array<{ pid: number; ppid: number; seconds: number; cmdline: string }> {
  const out = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const fields = statFields(fs.readFileSync(`/proc/${entry}/stat`, 'utf8'));
      const cmdline = fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8').replace(/\0/g, ' ');
      out.push({ pid: Number(entry), ppid: Number(fields[1]), seconds: (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND, cmdline });
    } catch {
      // the process ended while we read it
    }
  }
  return out;
}

/**
 * Per-part CPU seconds of the stack started by this bench (Linux /proc; empty elsewhere) plus `bench` (this process,
 * i.e. the load generator). Processes that exited in between are not counted (pooled connections live on).
 */
export function cpuSnapshot(): CpuSnapshot {
  const snapshot: CpuSnapshot = new Map();
  const usage = process.cpuUsage();
  snapshot.set('bench', (usage.user + usage.system) / 1e6);
  if (!fs.existsSync('/proc/self/stat')) return snapshot;
  const processes = readProcesses();
  const children = new Map<number, typeof processes>();
  for (const p of processes) children.set(p.ppid, [...(children.get(p.ppid) ?? []), p]);
  const visit = (pid: number, inherited?: string) => {
    for (const child of children.get(pid) ?? []) {
      const part = inherited ?? partOf(child.cmdline);
      // Per process: a PostgreSQL backend that exits between two snapshots would otherwise make its part's sum drop.
      snapshot.set(`${part}#${child.pid}`, child.seconds);
      visit(child.pid, part === 'other' ? undefined : part);
    }
  };
  visit(process.pid);
  return snapshot;
}

/**
 * Stops (SIGSTOP) the worker process(es) this bench started, for a breakdown row that measures the write path without
 * the event dispatch competing for the CPU; the returned function resumes them (SIGCONT). Never touches a stack this
 * process did not start: with BENCH_API_URL there is no such descendant and nothing is paused.
 */
export function pauseOwnWorker(): { paused: number; resume: () => void } {
  const processes = readProcesses();
  const mine = new Set([process.pid]);
  const workers: number[] = [];
  // Parents come before children often but not always: iterate until no new descendant is found.
  for (let grew = true; grew;) {
    grew = false;
    for (const p of processes) {
      if (!mine.has(p.pid) && mine.has(p.ppid)) {
        mine.add(p.pid);
        grew = true;
        if (partOf(p.cmdline) === 'worker') workers.push(p.pid);
      }
    }
  }
  for (const pid of workers) process.kill(pid, 'SIGSTOP');
  return { paused: workers.length, resume: () => workers.forEach((pid) => process.kill(pid, 'SIGCONT')) };
}

const partOfKey = (key: string) => key.split('#')[0];

/**
 * CPU seconds each process used between two snapshots; a process started in between counts from zero, one that exited
 * in between is missing (its last seconds are lost, never subtracted).
 */
export function cpuDelta(before: CpuSnapshot, after: CpuSnapshot): CpuSnapshot {
  return new Map([...after].map(([key, seconds]) => [key, seconds - (before.get(key) ?? 0)]));
}

/** "api 1.2, worker 3.4, ..." milliseconds of CPU per operation between two snapshots (`operations` may be a fraction, e.g. thousands). */
export function cpuPerOperation(before: CpuSnapshot, after: CpuSnapshot, operations: number): string {
  const byPart = new Map<string, number>();
  for (const [key, seconds] of cpuDelta(before, after)) {
    const part = partOfKey(key);
    byPart.set(part, (byPart.get(part) ?? 0) + seconds);
  }
  return (
    [...byPart.keys()]
      .filter((k) => k !== 'other')
      .sort()
      // /proc counts in 10 ms ticks: a part that used fewer than two of them in the window is noise, not a cost.
      .filter((part) => part === 'bench' || byPart.get(part)! >= 2 / TICKS_PER_SECOND)
      .map((part) => [part, (byPart.get(part)! * 1000) / (operations || 1)] as const)
      .filter(([, ms]) => ms >= 0.0005)
      // Two significant digits below a millisecond: a read costs tens of microseconds, which one decimal rounded to 0.1.
      .map(([part, ms]) => `${part} ${ms >= 1 ? ms.toFixed(1) : ms.toPrecision(2)}`)
      .join(', ')
  );
}

/** Adds the CPU used between two snapshots into `total` (per process), for measurements made of several rounds. */
export function addCpu(total: CpuSnapshot, before: CpuSnapshot, after: CpuSnapshot): void {
  for (const [key, seconds] of cpuDelta(before, after)) total.set(key, (total.get(key) ?? 0) + seconds);
}

/** The machine's CPU ticks so far, all and stolen (Linux /proc/stat; undefined elsewhere). */
export function machineTicks(): { total: number; steal: number } | undefined {
  try {
    const fields = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
    // user nice system idle iowait irq softirq steal guest guest_nice: guest time is already counted in user.
    return { total: fields.slice(0, 8).reduce((a, b) => a + b, 0), steal: fields[7] ?? 0 };
  } catch {
    return undefined;
  }
}

/**
 * The share of the machine's CPU time a virtual machine's hypervisor gave to others since `start` (its steal time): on
 * a shared host it slows every row unevenly, so a run with more than a few percent is not one to compare with.
 */
export function stealSince(start: ReturnType<typeof machineTicks>): string {
  const end = machineTicks();
  if (!start || !end || end.total === start.total) return 'unknown';
  return `${(((end.steal - start.steal) / (end.total - start.total)) * 100).toFixed(1)}%`;
}

/**
 * The CPU of the measured part of a run, between its warm-up's end and its last measured operation: httpLoad and
 * measureLoop mark both ends, and interleavedRounds counts that window instead of the whole run when it was marked.
 * Counting the warm-up too charged its operations to the measured ones: a row of 100 bulks after a warm-up of 64
 * reported 1.64 times the CPU each one cost.
 */
let window: { before?: CpuSnapshot; after?: CpuSnapshot } = {};

export function markMeasuredStart(): void {
  window = { before: cpuSnapshot() };
}

export function markMeasuredEnd(): void {
  if (window.before) window.after = cpuSnapshot();
}

/** Forgets any marked window (before a run). */
export function resetMeasuredWindow(): void {
  window = {};
}

/** The window marked since the last reset, when both ends were. */
export function measuredWindow(): { before: CpuSnapshot; after: CpuSnapshot } | undefined {
  return window.before && window.after ? { before: window.before, after: window.after } : undefined;
}

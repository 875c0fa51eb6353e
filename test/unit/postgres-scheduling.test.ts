import { spawn, type ChildProcess } from 'node:child_process';
import { applyBatchScheduling, childrenOf, postgresSchedulingFromEnv, SCHED_BATCH, schedulingPolicyOf } from '../../scripts/stack/postgres-scheduling';

const SCHED_OTHER = 0;

async function until<T>(probe: () => T | undefined): Promise<T> {
  for (let attempt = 0; attempt < 200; attempt += 1) {
    const value = probe();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error('timed out');
}

describe('postgresSchedulingFromEnv', () => {
  it('is batch by default and takes batch or normal', () => {
    expect(postgresSchedulingFromEnv({})).toBe('batch');
    expect(postgresSchedulingFromEnv({ EMBEDDED_POSTGRES_SCHEDULING: 'normal' })).toBe('normal');
    expect(postgresSchedulingFromEnv({ EMBEDDED_POSTGRES_SCHEDULING: 'batch' })).toBe('batch');
  });

  it('stops the start on any other value, naming it', () => {
    expect(() => postgresSchedulingFromEnv({ EMBEDDED_POSTGRES_SCHEDULING: 'fifo' })).toThrow('EMBEDDED_POSTGRES_SCHEDULING must be batch or normal, not "fifo"');
  });
});

describe('applyBatchScheduling', () => {
  let shell: ChildProcess | undefined;
  afterEach(() => {
    if (shell?.pid) for (const child of childrenOf(shell.pid)) process.kill(child, 'SIGKILL');
    shell?.kill('SIGKILL');
  });

  it('moves a process and its children to SCHED_BATCH, and what it forks afterwards inherits it', async () => {
    // A stand-in for the postmaster: one child forked before the policy is set, one after (as backends are).
    shell = spawn('sh', ['-c', 'sleep 60 & read line; sleep 61 & wait'], { stdio: ['pipe', 'ignore', 'ignore'] });
    const parent = shell.pid as number;
    const before = await until(() => childrenOf(parent)[0]);
    expect(schedulingPolicyOf(parent)).toBe(SCHED_OTHER);
    expect(schedulingPolicyOf(before)).toBe(SCHED_OTHER);

    const problems: string[] = [];
    applyBatchScheduling(parent, (line) => problems.push(line));
    expect(problems).toEqual([]);
    expect(schedulingPolicyOf(parent)).toBe(SCHED_BATCH);
    expect(schedulingPolicyOf(before)).toBe(SCHED_BATCH);

    shell.stdin?.write('fork\n');
    const after = await until(() => childrenOf(parent).find((pid) => pid !== before));
    expect(schedulingPolicyOf(after)).toBe(SCHED_BATCH);
  });

  it('says why when the process is gone, and does not throw', () => {
    const problems: string[] = [];
    applyBatchScheduling(2 ** 22 + 1, (line) => problems.push(line));
    expect(problems).toEqual([expect.stringContaining('SCHED_BATCH not set on PostgreSQL (pid 4194305)')]);
  });
});

import path from 'node:path';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { SCHED_BATCH } from '../../../scripts/stack/postgres-scheduling';

const SCHED_OTHER = 0;
const SCRIPT = path.join(__dirname, '../../support/embedded-postgres-policy.ts');

/** The policies of a new connection's backend, on a fresh embedded server started with `scheduling` and after its restart. */
async function policies(scheduling: string): Promise<{ started: number; restarted: number }> {
  const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', SCRIPT, scheduling], { timeout: 60_000 });
  return JSON.parse(stdout.trim().split('\n').at(-1) as string);
}

describe('embedded PostgreSQL scheduling', () => {
  it('runs every backend under SCHED_BATCH when asked (the default), after a restart too', async () => {
    expect(await policies('batch')).toEqual({ started: SCHED_BATCH, restarted: SCHED_BATCH });
  });

  it('leaves the normal policy with EMBEDDED_POSTGRES_SCHEDULING=normal', async () => {
    expect(await policies('normal')).toEqual({ started: SCHED_OTHER, restarted: SCHED_OTHER });
  });
});

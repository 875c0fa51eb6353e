import { pollUntil } from './eventually';

/** Whether any process of the group led by `pid` is still running (signal 0 checks without signalling). */
function groupAlive(pid: number): boolean {
  try {
    process.kill(-pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Waits until every process of the group led by `pid` has exited. */
export async function groupExited(pid: number, what: string): Promise<void> {
  await pollUntil(() => !groupAlive(pid), Boolean, { timeoutMs: 30_000, what });
}

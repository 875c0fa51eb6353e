import { isTruthy, pollUntil } from './eventually';
import { apiUrl } from './http';

type Part = 'api' | 'worker';
type Action = 'stop' | 'start' | 'restart' | 'kill' | 'freeze';

/**
 * Stops, starts, restarts (SIGTERM), kills (SIGKILL, then starts again) or freezes (SIGSTOP; undo with kill) the run's
 * API or worker process (a freeze is answered once the process is stopped).
 */
export async function control(part: Part, action: Action): Promise<void> {
  const response = await fetch(`${process.env.TEST_CONTROL_URL}/${part}/${action}`, { method: 'POST' });
  if (response.status !== 204) throw new Error(`control ${part} ${action} failed: ${await response.text()}`);
  if (part === 'api' && action !== 'stop') await waitForApi();
}

/** Waits until the API answers its health check again. */
export async function waitForApi(timeoutMs = 30_000): Promise<void> {
  const healthy = () =>
    fetch(`${apiUrl()}/_healthcheck`).then(
      (r) => r.status === 200,
      () => false,
    );
  await pollUntil(healthy, isTruthy, { timeoutMs, intervalMs: 100, what: 'the API to answer its health check' });
}

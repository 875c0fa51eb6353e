import { waitForWorkerPolling } from '../../../scripts/stack/temporal';
import { taskQueue } from '../../support/temporal';

/**
 * The gate `npm start` (and every platform the scripts start) passes before it prints that the platform is up:
 * the API's health check says nothing about the worker, so readiness also waits for a poller on the task queue.
 * test/integration/foundation/npm-start.test.ts checks the poller is there once `npm start` said it is up.
 */
describe('readiness waits for the worker', () => {
  const address = () => process.env.TEST_TEMPORAL_ADDRESS as string;

  it('passes once a worker polls the task queue', async () => {
    await expect(waitForWorkerPolling(address(), 'default', taskQueue(), 30_000)).resolves.toBeUndefined();
  });

  it('does not pass for a task queue no worker polls: it fails at its deadline, naming the queue', async () => {
    const queue = `nobody-polls-${Date.now()}`;
    await expect(waitForWorkerPolling(address(), 'default', queue, 1_500)).rejects.toThrow(`no worker polled task queue ${queue} within 1500 ms`);
  });

  it('stops waiting when the start is interrupted', async () => {
    const controller = new AbortController();
    const waiting = waitForWorkerPolling(address(), 'default', `nobody-polls-${Date.now()}`, 60_000, controller.signal);
    controller.abort(new Error('interrupted'));
    await expect(waiting).rejects.toThrow('interrupted');
  });
});

import '../../support/allow-loopback-providers';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { ApplicationFailure } from '@temporalio/common';
import { genericHttpPlugin } from '../../../activities/payments/plugins/generic-http';

/**
 * A provider's error body can carry anything (its view of the account, other customers, an echoed credential); the
 * failure message becomes a schedule, task or initiation error that any payments:read client reads, so it names the
 * status and the operation only, and the body goes to the worker's log.
 */
describe('generic HTTP connector provider errors', () => {
  const secret = `card 4111-1111-1111-1111 of customer 42, api key sk_live_${'x'.repeat(300)}`;
  const server = http.createServer((req, res) => {
    const status = req.url?.startsWith('/accounts') ? 403 : 503;
    res.writeHead(status, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify({ error: secret }));
  });
  let endpoint: string;
  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const failureOf = (promise: Promise<unknown>) =>
    promise.then(
      () => undefined,
      (error: unknown) => error as Error,
    );

  it('a 4xx is a non-retryable failure naming status and operation; the body is logged, not echoed', async () => {
    const warn = jest.fn();
    const plugin = genericHttpPlugin({ name: 'psp', endpoint, pollingPeriod: '1m', timeout: '2s' }, { warn } as never);
    const failure = await failureOf(plugin.fetchAccounts());
    expect(failure).toBeInstanceOf(ApplicationFailure);
    expect(failure).toMatchObject({ type: 'PROVIDER_REJECTED', nonRetryable: true, message: 'provider answered 403 to GET /accounts' });
    expect(warn).toHaveBeenCalledWith(
      expect.objectContaining({ connector: 'psp', operation: 'GET /accounts', status: 403, providerBody: expect.stringContaining(secret) }),
      expect.any(String),
    );
  });

  it('a 5xx is a retryable failure without the body either', async () => {
    const warn = jest.fn();
    const plugin = genericHttpPlugin({ name: 'psp', endpoint, pollingPeriod: '1m', timeout: '2s' }, { warn } as never);
    const failure = await failureOf(plugin.fetchPayments());
    expect(failure).not.toBeInstanceOf(ApplicationFailure);
    expect(failure?.message).toBe('provider answered 503 to GET /payments');
    expect(warn).toHaveBeenCalledWith(
      expect.objectContaining({ status: 503, providerBody: expect.stringContaining('sk_live_') }),
      expect.any(String),
    );
  });
});

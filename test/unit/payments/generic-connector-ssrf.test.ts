import { ApplicationFailure } from '@temporalio/common';
import { genericHttpPlugin } from '../../../activities/payments/plugins/generic-http';

/**
 * The generic connector calls whatever endpoint its config names, so it goes through the same SSRF guard as webhook
 * deliveries: cloud metadata and private addresses are refused before any connection, and the refusal is final.
 */
describe('generic HTTP connector SSRF guard', () => {
  it.each(['http://169.254.169.254', 'http://10.0.0.1:8080', 'http://[::ffff:10.0.0.1]', 'http://2130706433'])(
    'refuses %s with a non-retryable PROVIDER_REJECTED failure',
    async (endpoint) => {
      const plugin = genericHttpPlugin({ name: 'psp', endpoint, pollingPeriod: '1m', timeout: '2s' });
      const failure = await plugin.fetchAccounts().then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(failure).toBeInstanceOf(ApplicationFailure);
      expect(failure).toMatchObject({ type: 'PROVIDER_REJECTED', nonRetryable: true });
      expect((failure as Error).message).toMatch(/refus|blocked/i);
    },
  );
});

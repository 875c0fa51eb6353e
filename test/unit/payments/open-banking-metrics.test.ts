import fs from 'node:fs';
import { pluginFor } from '../../../activities/payments/plugins/registry';
import { metrics } from '../../../lib/metrics';
import { testTempDir } from '../../support/temp-dir';

/** The count and duration-sample count of one label set of the provider-call metrics. */
async function calls(operation: string, outcome: 'success' | 'error'): Promise<[number, number]> {
  const labels = { connector: 'simulated', operation, outcome };
  const matches = (l: Record<string, unknown>) =>
    l.connector === labels.connector && l.operation === labels.operation && l.outcome === labels.outcome;
  const counter = (await metrics.connectorCalls.get()).values.find((v) => matches(v.labels));
  const histogram = (await metrics.connectorCallDuration.get()).values.find((v) => v.metricName?.endsWith('_count') && matches(v.labels));
  return [counter?.value ?? 0, histogram?.value ?? 0];
}

describe('open-banking provider calls in the provider-call metrics', () => {
  let dir: string;
  beforeEach(() => {
    dir = testTempDir('ob-metrics-');
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('counts and times each open-banking call by provider, operation and outcome, as the fetches are', async () => {
    const bank = pluginFor('simulated', { name: 'sim', directory: dir } as never, dir).openBanking!;
    const createdBefore = await calls('openBanking.createUser', 'success');
    const refusedBefore = await calls('openBanking.completeUserLink', 'error');
    const deletedBefore = await calls('openBanking.deleteUser', 'success');

    await bank.createUser({ id: 'u1', name: 'Ada' });
    await expect(bank.completeUserLink({ psuID: 'nobody', connectionID: 'c1', attemptID: 'a1' })).rejects.toMatchObject({
      type: 'PROVIDER_REJECTED',
    });
    await bank.deleteUser('u1');
    await bank.deleteUser('u1');

    expect(await calls('openBanking.createUser', 'success')).toEqual([createdBefore[0] + 1, createdBefore[1] + 1]);
    expect(await calls('openBanking.completeUserLink', 'error')).toEqual([refusedBefore[0] + 1, refusedBefore[1] + 1]);
    expect(await calls('openBanking.deleteUser', 'success')).toEqual([deletedBefore[0] + 2, deletedBefore[1] + 2]);
    // The wrapped calls still reach the provider: the user it created is gone after the delete.
    expect(fs.readdirSync(`${dir}/open-banking/users`)).toEqual([]);
  });
});

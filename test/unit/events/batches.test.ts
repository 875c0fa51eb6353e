import { BATCH_MAX_DELIVERIES, BATCH_MAX_INPUT_BYTES, cutBatch } from '../../../areas/events/batches';
import type { Subscriptions } from '../../../areas/events/subscriptions';

const subscriptions = (configs: Record<string, number>, triggers: string[] = []): Subscriptions => ({
  listens: (event) => (configs[event.type] ?? 0) > 0 || triggers.includes(event.type),
  webhookConfigs: (event) => configs[event.type] ?? 0,
});
const row = (id: string, type: string, bytes = 100) => ({ id, app: 'ledger', type, bytes });

describe('cutting a claimed outbox batch', () => {
  it('marks unheard events, batches the heard ones in commit order', () => {
    const cut = cutBatch(
      [row('a', 'HEARD'), row('b', 'UNHEARD'), row('c', 'TRIGGERED'), row('d', 'HEARD')],
      subscriptions({ HEARD: 2 }, ['TRIGGERED']),
    );
    expect(cut).toEqual({ members: ['a', 'c', 'd'], unheard: ['b'], cut: false });
  });

  it('stops before the workflow input would pass its byte bound, leaving the rest for the next claim', () => {
    const half = BATCH_MAX_INPUT_BYTES / 2;
    const cut = cutBatch([row('a', 'HEARD', half), row('b', 'HEARD', half), row('c', 'UNHEARD'), row('d', 'HEARD')], subscriptions({ HEARD: 1 }));
    expect(cut).toEqual({ members: ['a'], unheard: [], cut: true });
  });

  it('stops before the deliveries would pass their bound, but always takes the first event', () => {
    const configs = subscriptions({ WIDE: BATCH_MAX_DELIVERIES + 1, NARROW: 1 });
    expect(cutBatch([row('a', 'WIDE'), row('b', 'NARROW')], configs)).toEqual({ members: ['a'], unheard: [], cut: true });
    expect(cutBatch([row('a', 'NARROW'), row('b', 'WIDE')], configs)).toEqual({ members: ['a'], unheard: [], cut: true });
  });
});

import { resolveStage, stageName, substitute, validateConfig } from '../../../lib/orchestration/config';
import { parseGoDuration } from '../../../lib/orchestration/stage-parse';

describe('orchestration config', () => {
  it('substitutes variables in every string leaf; a missing one becomes ""', () => {
    expect(substitute({ a: 'x-${v}-${missing}', b: ['${v}'], c: 5 }, { v: '1' })).toEqual({ a: 'x-1-', b: ['1'], c: 5 });
  });

  it('resolves a send with defaults and a BigInt amount from a variable', () => {
    const stage = {
      send: { source: { account: { id: 'users:${u}' } }, destination: { wallet: { name: 'w' } }, amount: { asset: 'USD/2', amount: '${a}' } },
    };
    expect(resolveStage(stage, 0, { u: '42', a: '123456789012345678901234567890' })).toEqual({
      type: 'send',
      spec: {
        source: { account: { id: 'users:42', ledger: 'default' } },
        destination: { wallet: { name: 'w', balance: 'main' } },
        amount: { asset: 'USD/2', amount: 123456789012345678901234567890n },
        metadata: {},
      },
    });
  });

  it('defers typed checks on variables to resolution', () => {
    const stage = {
      send: { source: { account: { id: 'a' } }, destination: { account: { id: 'b' } }, amount: { asset: '${asset}', amount: '${amount}' } },
    };
    expect(() => validateConfig({ stages: [stage] })).not.toThrow();
    expect(() => resolveStage(stage, 3, { asset: 'USD', amount: 'ten' })).toThrow('stages[3].send.amount.amount: must be a non-negative integer');
  });

  it('parses Go durations', () => {
    expect(parseGoDuration('1h2m3.5s')).toBe(3_723_500);
    expect(parseGoDuration('250ms')).toBe(250);
    expect(parseGoDuration('0')).toBe(0);
    expect(parseGoDuration('10')).toBeUndefined();
    expect(parseGoDuration('')).toBeUndefined();
  });

  it('names stages as Formance does', () => {
    expect(stageName('wait_event')).toBe('RunWaitEvent');
    expect(stageName('send')).toBe('RunSend');
  });
});

import { Webhook } from 'standardwebhooks';
import { createHmac } from 'node:crypto';
import { generateSecret, secretProblem, webhookHeaders } from '../../../lib/webhooks/signature';
import { classifyOutcome } from '../../../activities/webhooks/http-send';
import { backoffDelayMs } from '../../../lib/webhooks/settings';

describe('webhook signatures', () => {
  const body = JSON.stringify({ type: 'ledger.committed_transactions', payload: { amount: 12345678901234567890n.toString() } });

  it('are verified by the standardwebhooks package, with and without the whsec_ prefix', () => {
    for (const secret of [generateSecret(), `whsec_${Buffer.alloc(32, 7).toString('base64')}`]) {
      const headers = webhookHeaders({ secrets: [secret], id: 'a6c7d1e2-0000-4000-8000-000000000001', body, test: false });
      expect(new Webhook(secret).verify(body, headers)).toEqual(JSON.parse(body));
      expect(() => new Webhook(generateSecret()).verify(body, headers)).toThrow();
    }
  });

  it("also carry Formance's convention (HMAC keyed with the secret string) in formance-webhook-signature", () => {
    const secret = generateSecret();
    const now = new Date('2030-01-01T00:00:00Z');
    const headers = webhookHeaders({ secrets: [secret], id: 'msg-1', body, test: true, now });
    const formance = createHmac('sha256', Buffer.from(secret)).update(`msg-1.${headers['formance-webhook-timestamp']}.${body}`).digest('base64');
    expect(headers['formance-webhook-signature'].split(' ')).toContain(`v1,${formance}`);
    expect(headers['formance-webhook-timestamp']).toBe(String(now.getTime() / 1000));
    expect(headers['formance-webhook-test']).toBe('true');
    expect(headers['formance-webhook-id']).toBe('msg-1');
  });

  it('verify with the old and the new secret during a rotation', () => {
    const [previous, current] = [generateSecret(), generateSecret()];
    const headers = webhookHeaders({ secrets: [current, previous], id: 'msg-2', body, test: false });
    expect(() => new Webhook(current).verify(body, headers)).not.toThrow();
    expect(() => new Webhook(previous).verify(body, headers)).not.toThrow();
  });

  it('secrets: base64 of 24..64 bytes, optional whsec_ prefix', () => {
    expect(generateSecret()).toHaveLength(32);
    expect(secretProblem(generateSecret())).toBeUndefined();
    expect(secretProblem(`whsec_${Buffer.alloc(64).toString('base64')}`)).toBeUndefined();
    expect(secretProblem(Buffer.alloc(23).toString('base64'))).toMatch(/24 to 64 bytes, got 23/);
    expect(secretProblem(Buffer.alloc(65).toString('base64'))).toMatch(/got 65/);
    expect(secretProblem('not base64 at all!')).toMatch(/base64/);
    expect(secretProblem(Buffer.alloc(24).toString('base64url').replace(/A/g, '-'))).toMatch(/base64/);
  });
});

describe('delivery outcome classification', () => {
  it.each([
    [200, false, 'success'],
    [204, false, 'success'],
    [0, false, 'retry'],
    [408, false, 'retry'],
    [429, false, 'retry'],
    [500, false, 'retry'],
    [503, false, 'retry'],
    [302, false, 'final'],
    [400, false, 'final'],
    [404, false, 'final'],
    [410, false, 'final'],
    [0, true, 'final'],
  ])('status %i (blocked %s) is %s', (statusCode, blocked, verdict) => {
    expect(classifyOutcome({ statusCode: statusCode as number, blocked: blocked as boolean })).toBe(verdict);
  });

  it('backs off exponentially up to the maximum interval', () => {
    const settings = { initialIntervalMs: 10_000, backoffCoefficient: 3, maximumIntervalMs: 6 * 3600_000 };
    expect([1, 2, 3, 4].map((n) => backoffDelayMs(settings, n))).toEqual([10_000, 30_000, 90_000, 270_000]);
    expect(backoffDelayMs(settings, 20)).toBe(6 * 3600_000);
  });
});

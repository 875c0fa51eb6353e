import { capabilitiesOf, fetchKindsOf, requireCapability } from '../../../areas/payments/connectors/connector-catalog';
import { connectorId, connectorLabel, connectorReference } from '../../../areas/payments/ids';
import { isApiError } from '../../../lib/errors';
import { registerBuiltInConnectorPlugins } from '../../../activities/payments/plugins';

// The catalog reads each provider's facts from its registered plugin, as the API and the worker register them at start.
registerBuiltInConnectorPlugins();

describe('connector capabilities and readable Temporal ids', () => {
  it('an operation needing a capability the connector lacks is 400 VALIDATION naming the capability', () => {
    const connector = { id: 'c1', provider: 'generic' };
    expect(() => requireCapability(connector, 'CREATE_TRANSFER')).not.toThrow();
    let error: unknown;
    try {
      requireCapability(connector, 'FETCH_ORDERS');
    } catch (caught) {
      error = caught;
    }
    expect(isApiError(error) && { code: error.code, status: error.status, message: error.message }).toEqual({
      code: 'VALIDATION',
      status: 400,
      message: 'connector c1 (generic) does not have the capability FETCH_ORDERS',
    });
    expect(() => requireCapability({ id: 'c2', provider: 'unknown' }, 'FETCH_PAYMENTS')).toThrow(/capability FETCH_PAYMENTS/);
  });

  it('reversals are operations without a V3Capability name: checked and named like one, never listed', () => {
    expect(() => requireCapability({ id: 's1', provider: 'simulated' }, 'REVERSE_TRANSFER')).not.toThrow();
    expect(() => requireCapability({ id: 's1', provider: 'simulated' }, 'REVERSE_PAYOUT')).not.toThrow();
    expect(() => requireCapability({ id: 'g1', provider: 'generic' }, 'REVERSE_PAYOUT')).toThrow(
      'connector g1 (generic) does not have the capability REVERSE_PAYOUT',
    );
    expect(capabilitiesOf('simulated')).not.toContain('REVERSE_TRANSFER');
    expect(() => requireCapability({ id: 'st1', provider: 'stripe' }, 'REVERSE_TRANSFER')).not.toThrow();
    expect(() => requireCapability({ id: 'st1', provider: 'stripe' }, 'REVERSE_PAYOUT')).toThrow(
      'connector st1 (stripe) does not have the capability REVERSE_PAYOUT',
    );
  });

  it('polls one kind per fetch capability', () => {
    expect(fetchKindsOf('simulated')).toEqual(['accounts', 'balances', 'payments', 'conversions', 'orders']);
    expect(fetchKindsOf('generic')).toEqual(['accounts', 'balances', 'payments']);
    expect(fetchKindsOf('stripe')).toEqual(['accounts', 'balances', 'payments']);
    expect(fetchKindsOf('unknown')).toEqual([]);
    expect(capabilitiesOf('generic')).toContain('FETCH_EXTERNAL_ACCOUNTS');
  });

  it('labels a connector by provider, name and the start of its reference, keeping only id-safe characters', () => {
    const id = connectorId('simulated');
    const reference = connectorReference(id) as string;
    expect(reference).toMatch(/^[0-9a-f-]{36}$/);
    expect(connectorLabel({ id, provider: 'simulated', name: 'Bank of X / EUR' })).toBe(
      `connector-simulated-bank-of-x-eur-${reference.replace(/-/g, '').slice(0, 8)}`,
    );
    expect(connectorLabel({ id, provider: 'generic', name: '***' })).toMatch(/^connector-generic-unnamed-[0-9a-f]{8}$/);
    expect(connectorReference('not-an-id')).toBeUndefined();
  });
});

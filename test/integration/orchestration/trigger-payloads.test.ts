import type { Db } from '../../../db/knex';
import { EVENT_PAYLOADS, ListOf, MapOf, type PayloadShape } from '../../../areas/orchestration/event-payloads';
import { parseJson } from '../../../lib/json';
import { api } from '../../support/http';
import { fund } from '../../support/ledger-fixtures';
import { newLedger } from '../../support/ledger';
import { isDefined, pollUntil } from '../../support/eventually';
import { installSimulated, simulatedDirectory, suffix, testDb } from '../../support/payments';

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const SCALARS: Record<string, (value: unknown) => boolean> = {
  string: (v) => typeof v === 'string',
  int: (v) => typeof v === 'bigint' || Number.isInteger(v),
  bool: (v) => typeof v === 'boolean',
  dyn: () => true,
  'map<string, string>': (v) => isObject(v) && Object.values(v).every((item) => typeof item === 'string'),
  'map<string, dyn>': isObject,
};

/** Where `value` leaves `shape`: a field the shape does not declare, or a value of another type. */
function mismatches(shape: PayloadShape, value: unknown, path: string): string[] {
  if (typeof shape === 'string') {
    if (!SCALARS[shape]) throw new Error(`${path}: no check for type ${shape}`);
    return SCALARS[shape](value) ? [] : [`${path}: ${JSON.stringify(value)} is not ${shape}`];
  }
  if (shape instanceof ListOf)
    return Array.isArray(value) ? value.flatMap((item, i) => mismatches(shape.item, item, `${path}[${i}]`)) : [`${path}: not a list`];
  if (!isObject(value)) return [`${path}: not an object`];
  if (shape instanceof MapOf) return Object.entries(value).flatMap(([key, item]) => mismatches(shape.value, item, `${path}["${key}"]`));
  return Object.entries(value).flatMap(([key, item]) =>
    key in shape ? mismatches(shape[key], item, `${path}.${key}`) : [`${path}.${key}: not declared`],
  );
}

/**
 * The payload shapes trigger expressions are checked against must be those the platform emits, or a valid
 * expression would be refused (an undeclared field) or a broken one let through. Every ledger and payments event type
 * is produced here through the API and the real worker, then every such event in the outbox is compared.
 */
describe('trigger payload shapes', () => {
  let db: Db;
  let connectorID: string;
  beforeAll(() => {
    db = testDb();
  });
  afterAll(async () => {
    if (connectorID) await api('DELETE', `/api/payments/v3/connectors/${connectorID}`);
    await db.destroy();
  });

  it('declare every field, with its type, of every ledger and payments event the platform emits', async () => {
    const ledger = await newLedger('shapes');
    await fund(ledger, 'users:1', 500);
    const plain = `send [USD/2 100] ( source = @users:1 destination = @shops:1 )\nset_account_meta(@shops:1, "kind", "shop")`;
    const scripted = await api('POST', `/api/ledger/v2/${ledger}/transactions`, {
      body: { script: { plain, vars: {} }, reference: `ref-${suffix()}`, metadata: { a: 'b' } },
    });
    expect(scripted.status).toBe(200);
    const txid = scripted.body.data.id;
    expect((await api('POST', `/api/ledger/v2/${ledger}/transactions/${txid}/metadata`, { body: { k: 'v' } })).status).toBe(204);
    expect((await api('POST', `/api/ledger/v2/${ledger}/accounts/users:1/metadata`, { body: { k: 'v' } })).status).toBe(204);
    expect((await api('DELETE', `/api/ledger/v2/${ledger}/accounts/users:1/metadata/k`)).status).toBe(204);
    expect((await api('POST', `/api/ledger/v2/${ledger}/transactions/${txid}/revert`)).status).toBe(201);

    const dir = simulatedDirectory({
      'accounts.json': [
        { reference: 'main', type: 'INTERNAL', name: 'Main', defaultAsset: 'EUR/2', metadata: { m: '1' } },
        { reference: 'supplier', type: 'EXTERNAL' },
      ],
      'balances.json': [{ accountReference: 'main', asset: 'EUR/2', amount: 1000 }],
    });
    connectorID = await installSimulated(dir, '1s');
    const accountID = (reference: string) => Buffer.from(JSON.stringify({ ConnectorID: connectorID, Reference: reference })).toString('base64url');
    const poolID: string = await pollUntil(
      async () => {
        const res = await api('POST', '/api/payments/v3/pools', { body: { name: `shapes-${suffix()}`, accountIDs: [accountID('main')] } });
        return res.status === 201 ? res.body.data : undefined;
      },
      isDefined,
      { timeoutMs: 30_000, what: 'accounts fetched' },
    );
    expect((await api('DELETE', `/api/payments/v3/pools/${poolID}`)).status).toBe(204);
    const bank = await api('POST', '/api/payments/v3/bank-accounts', {
      body: { name: 'shapes', iban: 'FR7630006000011234567890189', metadata: { x: 'y' } },
    });
    expect(bank.status).toBe(201);
    const initiation = await api('POST', '/api/payments/v3/payment-initiations?noValidation=true', {
      body: {
        reference: `pi-${suffix()}`,
        connectorID,
        type: 'TRANSFER',
        amount: 100,
        asset: 'EUR/2',
        sourceAccountID: accountID('main'),
        destinationAccountID: accountID('supplier'),
        description: 'shapes',
        metadata: { k: 'v' },
      },
    });
    expect(initiation.status).toBe(202);

    const declared = Object.keys(EVENT_PAYLOADS).sort();
    const rows: Array<{ type: string; payload: string }> = await pollUntil(
      async () => {
        const found = await db('events_outbox').whereIn('type', declared).select('type', 'payload');
        return new Set(found.map((r: { type: string }) => r.type)).size === declared.length ? found : undefined;
      },
      isDefined,
      { timeoutMs: 30_000, what: 'an event of every declared type' },
    );
    expect([...new Set(rows.map((r) => r.type))].sort()).toEqual(declared);
    expect(rows.flatMap((row) => mismatches(EVENT_PAYLOADS[row.type], parseJson(row.payload), row.type))).toEqual([]);
  });
});

import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { parseJson, stringifyJson } from '../../lib/json';

/** Identifiers of real resources, so the seeded pass reaches past the 404s into the handlers and their 2xx schemas. */
export interface SeededResources {
  ledger: string;
  txid: string;
  address: string;
  walletId: string;
  balanceName: string;
  holdId: string;
  webhookConfigId: string;
  workflowId: string;
  instanceId: string;
  bankAccountId: string;
  paymentServiceUserId: string;
  poolId: string;
}

async function call(apiUrl: string, token: string, method: string, route: string, body?: unknown): Promise<any> {
  const response = await fetch(`${apiUrl}${route}`, {
    method,
    headers: { Authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
    body: body === undefined ? undefined : stringifyJson(body),
    signal: AbortSignal.timeout(60_000),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`seeding: ${method} ${route} answered ${response.status}: ${text}`);
  return text ? parseJson(text) : undefined;
}

/**
 * Creates one of each resource an operation can address by id (a ledger with a transaction, a wallet with a balance
 * and a hold, a webhook config on a closed loopback port, a finished one-stage workflow instance, payments' bank account,
 * payment service user and pool) through the public API, as a client would.
 */
export async function seedResources(apiUrl: string, token: string): Promise<SeededResources> {
  const tag = randomBytes(4).toString('hex');
  const req = (method: string, route: string, body?: unknown) => call(apiUrl, token, method, route, body);
  const ledger = `fuzz-${tag}`;
  await req('POST', `/api/ledger/v2/${ledger}`);
  const address = `users:${tag}`;
  const tx = await req('POST', `/api/ledger/v2/${ledger}/transactions`, {
    postings: [{ source: 'world', destination: address, amount: 1000, asset: 'USD/2' }],
    metadata: { seeded: 'yes' },
  });
  await req('POST', `/api/ledger/v2/${ledger}/transactions`, { postings: [{ source: address, destination: 'world', amount: 10, asset: 'USD/2' }] });

  const wallet = await req('POST', '/api/wallets/wallets', { name: `fuzz-${tag}`, metadata: { seeded: 'yes' } });
  const walletId = wallet.data.id;
  const balanceName = `savings${tag}`;
  await req('POST', `/api/wallets/wallets/${walletId}/balances`, { name: balanceName });
  await req('POST', `/api/wallets/wallets/${walletId}/credit`, { amount: { asset: 'USD/2', amount: 5000 } });
  const hold = await req('POST', `/api/wallets/wallets/${walletId}/debit`, { amount: { asset: 'USD/2', amount: 100 }, pending: true });

  const config = await req('POST', '/api/webhooks/configs', { endpoint: 'http://127.0.0.1:9/fuzz', eventTypes: ['ledger.committed_transactions'] });

  const workflow = await req('POST', '/api/orchestration/v2/workflows', {
    name: `fuzz-${tag}`,
    stages: [{ noop: {} }],
  });
  const instance = await req('POST', `/api/orchestration/v2/workflows/${workflow.data.id}/instances?wait=true`, {});

  const bankAccount = await req('POST', '/api/payments/v3/bank-accounts', {
    name: `fuzz-${tag}`,
    iban: 'FR7630006000011234567890189',
    country: 'FR',
  });
  const psu = await req('POST', '/api/payments/v3/payment-service-users', { name: `fuzz-${tag}` });
  const pool = await req('POST', '/api/payments/v3/pools', { name: `fuzz-${tag}`, accountIDs: [] });

  return {
    ledger,
    txid: String(tx.data.id),
    address,
    walletId,
    balanceName,
    holdId: hold.data.id,
    webhookConfigId: config.data.id,
    workflowId: workflow.data.id,
    instanceId: instance.data.id,
    bankAccountId: idOf(bankAccount),
    paymentServiceUserId: idOf(psu),
    poolId: idOf(pool),
  };
}

// Payments' create operations answer `{data: "<id>"}`, the others `{data: {id, ...}}`.
const idOf = (response: { data: string | { id: string } }): string => (typeof response.data === 'string' ? response.data : response.data.id);

const toml = (value: string) => JSON.stringify(value);

/**
 * A schemathesis.toml binding every path parameter to a seeded resource: globally where a name means one thing
 * (`ledger`, `holdID`...), per operation where `id` means a transaction, a wallet or a webhook config.
 */
export function seededConfig(seed: SeededResources): string {
  const globals: Record<string, string> = {
    'path.ledger': seed.ledger,
    'path.address': seed.address,
    'path.txid': seed.txid,
    'path.balanceName': seed.balanceName,
    'path.holdID': seed.holdId,
    'path.workflowID': seed.workflowId,
    'path.instanceID': seed.instanceId,
    'path.number': '0',
    'path.bankAccountId': seed.bankAccountId,
    'path.bankAccountID': seed.bankAccountId,
    'path.paymentServiceUserID': seed.paymentServiceUserId,
    'path.poolID': seed.poolId,
  };
  const byPath: Array<[string, string]> = [
    ['^/api/ledger/v2/\\{ledger\\}/transactions/\\{id\\}', seed.txid],
    ['^/api/wallets/wallets/\\{id\\}', seed.walletId],
    ['^/api/webhooks/configs/\\{id\\}', seed.webhookConfigId],
  ];
  return [
    '[parameters]',
    ...Object.entries(globals).map(([key, value]) => `${toml(key)} = ${toml(value)}`),
    ...byPath.flatMap(([regex, id]) => ['', '[[operations]]', `include-path-regex = '${regex}'`, `parameters = { "path.id" = ${toml(id)} }`]),
    '',
  ].join('\n');
}

/** Seeds the resources and writes the config file; returns its path. */
export async function writeSeededConfig(apiUrl: string, token: string, dir: string): Promise<string> {
  const file = path.join(dir, 'schemathesis.toml');
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(file, seededConfig(await seedResources(apiUrl, token)));
  return file;
}

import http from 'node:http';
import Stripe from 'stripe';
import { connectorLabel } from '../../areas/payments';
import { createTemporalClient } from '../../lib/temporal';
import { cpuPerOperation, cpuSnapshot } from '../lib/cpu';
import { call, settle, withDb } from '../lib/helpers';
import { jsonClient } from '../lib/http-client';
import type { BenchPlatform } from '../lib/platform';
import { measureLoop, type Measurement } from '../lib/stats';
import type { Scenario } from './index';
import { timedRuns } from './payments-fetch';

const BALANCE_TRANSACTIONS = 10_000;
const WEBHOOK_EVENTS = 2_000;
const WEBHOOK_CONCURRENCY = 16;
const PAGE_MAX = 100; // Stripe's largest `limit`.
const BASE_SECONDS = Math.floor(Date.UTC(2024, 0, 1) / 1000);

const txnId = (k: number) => `txn_bench${String(k).padStart(8, '0')}`;
const chargeId = (k: number) => `ch_bench${String(k).padStart(8, '0')}`;

/** A succeeded card charge as Stripe returns it (the fields the mapping reads, and the usual others). */
function charge(id: string, amount: number, created: number, balanceTransaction: string | null, order: string) {
  return {
    id,
    object: 'charge',
    amount,
    amount_captured: amount,
    amount_refunded: 0,
    balance_transaction: balanceTransaction,
    captured: true,
    created,
    currency: 'usd',
    customer: null,
    description: `Order ${order}`,
    livemode: false,
    metadata: { order },
    outcome: { network_status: 'approved_by_network', risk_level: 'normal', seller_message: 'Payment complete.', type: 'authorized' },
    paid: true,
    payment_intent: `pi_${id.slice(3)}`,
    payment_method: `pm_${id.slice(3)}`,
    payment_method_details: {
      card: { brand: 'visa', country: 'US', exp_month: 12, exp_year: 2030, funding: 'credit', last4: '4242', network: 'visa' },
      type: 'card',
    },
    refunded: false,
    refunds: { object: 'list', data: [], has_more: false, url: `/v1/charges/${id}/refunds` },
    status: 'succeeded',
  };
}

/** Balance transaction `k` (0 is the oldest): a charge, its `source` expanded. */
function balanceTransaction(k: number) {
  const amount = 1000 + (k % 9000);
  const fee = Math.round(amount * 0.029) + 30;
  const created = BASE_SECONDS + k;
  return {
    id: txnId(k),
    object: 'balance_transaction',
    amount,
    available_on: created + 2 * 86_400,
    created,
    currency: 'usd',
    description: `Order o-${k}`,
    exchange_rate: null,
    fee,
    fee_details: [{ amount: fee, application: null, currency: 'usd', description: 'Stripe processing fees', type: 'stripe_fee' }],
    net: amount - fee,
    reporting_category: 'charge',
    source: charge(chargeId(k), amount, created, txnId(k), `o-${k}`),
    status: 'available',
    type: 'charge',
  };
}

interface FakeStripe {
  url: string;
  /** The signing secrets of the webhook endpoints created, in order. */
  secrets: string[];
  close(): Promise<void>;
}

/**
 * A Stripe API on 127.0.0.1 serving one platform account without connected accounts and `total` balance transactions,
 * listed newest first in pages of up to 100 after `starting_after`, as Stripe lists them. Webhook endpoints are
 * created (each with its `whsec_` secret) and deleted; any other request is Stripe's 404.
 */
function startFakeStripe(total: number): Promise<FakeStripe> {
  const secrets: string[] = [];
  const json = (res: http.ServerResponse, status: number, body: unknown) =>
    res.writeHead(status, { 'content-type': 'application/json', 'request-id': `req_bench${Date.now()}` }).end(JSON.stringify(body));
  const missing = (res: http.ServerResponse, message: string) => json(res, 404, { error: { type: 'invalid_request_error', message } });
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const url = new URL(req.url!, 'http://stripe');
      const route = `${req.method} ${url.pathname}`;
      if (route === 'GET /v1/account') {
        return json(res, 200, {
          id: 'acct_benchplatform',
          object: 'account',
          business_profile: { name: 'Bench platform' },
          charges_enabled: true,
          country: 'US',
          created: BASE_SECONDS,
          default_currency: 'usd',
          email: 'platform@example.com',
          metadata: {},
          payouts_enabled: true,
          settings: { dashboard: { display_name: 'Bench platform' } },
          type: 'standard',
        });
      }
      if (route === 'GET /v1/accounts') return json(res, 200, { object: 'list', data: [], has_more: false, url: '/v1/accounts' });
      if (route === 'GET /v1/balance') {
        return json(res, 200, {
          object: 'balance',
          available: [{ amount: 12_345_600, currency: 'usd', source_types: { card: 12_345_600 } }],
          pending: [{ amount: 0, currency: 'usd', source_types: { card: 0 } }],
          livemode: false,
        });
      }
      if (route === 'GET /v1/balance_transactions') {
        const after = url.searchParams.get('starting_after');
        const match = after ? /^txn_bench(\d{8})$/.exec(after) : null;
        if (after && !match) return missing(res, `No such balance_transaction: '${after}'`);
        const newest = match ? Number(match[1]) - 1 : total - 1;
        const limit = Math.min(PAGE_MAX, Math.max(1, Number(url.searchParams.get('limit') ?? 10)));
        const data = Array.from({ length: Math.min(limit, newest + 1) }, (_, i) => balanceTransaction(newest - i));
        return json(res, 200, { object: 'list', data, has_more: newest + 1 > limit, url: '/v1/balance_transactions' });
      }
      if (route === 'POST /v1/webhook_endpoints') {
        const form = new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
        const id = `we_bench${secrets.length}`;
        const secret = `whsec_bench${secrets.length}${Math.random().toString(36).slice(2)}`;
        secrets.push(secret);
        return json(res, 200, {
          id,
          object: 'webhook_endpoint',
          api_version: null,
          application: null,
          created: Math.floor(Date.now() / 1000),
          description: form.get('description'),
          enabled_events: [...form].filter(([key]) => key.startsWith('enabled_events[')).map(([, value]) => value),
          livemode: false,
          metadata: {},
          secret,
          status: 'enabled',
          url: form.get('url'),
        });
      }
      const deleted = /^DELETE \/v1\/webhook_endpoints\/(we_bench\d+)$/.exec(route);
      if (deleted) return json(res, 200, { id: deleted[1], object: 'webhook_endpoint', deleted: true });
      return missing(res, `Unrecognized request URL (${req.method}: ${url.pathname}).`);
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      resolve({
        url: `http://127.0.0.1:${port}`,
        secrets,
        close: () =>
          new Promise<void>((done) => {
            server.close(() => done());
            server.closeAllConnections();
          }),
      });
    }),
  );
}

/** `charge.succeeded` for charge `i`, as Stripe sends it to the platform's endpoint. */
function chargeEvent(i: number, created: number): string {
  return JSON.stringify({
    id: `evt_bench${String(i).padStart(8, '0')}`,
    object: 'event',
    api_version: '2024-06-20',
    created,
    livemode: false,
    pending_webhooks: 1,
    request: { id: `req_bench${i}`, idempotency_key: null },
    type: 'charge.succeeded',
    data: { object: charge(`ch_hook${String(i).padStart(8, '0')}`, 2000 + i, created, null, `w-${i}`) },
  });
}

/**
 * The Stripe connector against a paging fake of Stripe's API. Row 1: a fetch cycle of 10,000 balance transactions
 * (× BENCH_SCALE; charges with their source expanded, 100 a page), the install timed to the end of its install task as
 * the simulated connector's is. Row 2: 2,000 distinct signed `charge.succeeded` events (× BENCH_SCALE) POSTed to the
 * connector's webhook route at 16 concurrent requests, each answered 204 once verified and stored.
 */
export const paymentsStripeScenario: Scenario = {
  name: 'payments-stripe',
  async run(platform: BenchPlatform, scale: number): Promise<Measurement[]> {
    const total = Math.max(1, Math.round(BALANCE_TRANSACTIONS * scale));
    const events = Math.max(1, Math.round(WEBHOOK_EVENTS * scale));
    const fake = await startFakeStripe(total);
    const token = await platform.token();
    const name = `bench-stripe-${Date.now().toString(36)}`;
    let connectorID = '';
    const stored = () =>
      withDb(platform, async (db) => {
        const [{ n }] = (await db('payments_payments').where({ connector_id: connectorID }).count('* as n')) as Array<{ n: string }>;
        return Number(n);
      });
    try {
      const run = await timedRuns(platform, total, async () => {
        connectorID = (
          await call(
            platform,
            token,
            'POST',
            '/api/payments/v3/connectors/install/stripe',
            { name, apiKey: 'sk_test_bench', endpoint: fake.url, pollingPeriod: '1h' },
            [202],
          )
        ).data;
        return [`${connectorLabel({ id: connectorID, provider: 'stripe', name })}-install`];
      });
      const fetched = await stored();
      const fetch: Measurement = {
        scenario: `payments Stripe fetch cycle, ${total} balance transactions (install)`,
        unit: 'payments/s',
        throughput: total / run.seconds,
        p50Ms: NaN,
        p99Ms: NaN,
        operations: total,
        errors: Math.abs(total - fetched) + (fake.secrets.length === 2 ? 0 : 1),
        notes:
          `${total} charges in ${Math.ceil(total / PAGE_MAX)} pages of ${PAGE_MAX} in ${run.seconds.toFixed(1)} s; CPU ms per 1,000 payments (bench: the fake Stripe's): ${run.cpu}; ` +
          `then its events' dispatch ${run.dispatchSeconds.toFixed(1)} s, CPU ms per 1,000 payments: ${run.dispatchCpu || 'each part under 0.05'}`,
      };
      process.stdout.write(`[bench] payments-stripe: ${run.workflowIds.join(', ')}, ${fetched} payments stored\n`);

      // Signed beforehand (the sender's work, not the platform's), with the platform endpoint's secret, within Stripe's 5-minute tolerance.
      const created = Math.floor(Date.now() / 1000);
      const signed = Array.from({ length: events }, (_, i) => {
        const payload = chargeEvent(i, created);
        return { payload, signature: Stripe.webhooks.generateTestHeaderString({ payload, secret: fake.secrets[0] }) };
      });
      const client = jsonClient(platform.apiUrl, {
        connections: WEBHOOK_CONCURRENCY,
        headers: { 'Content-Type': 'application/json; charset=utf-8' },
      });
      const path = `/api/payments/v3/connectors/webhooks/${encodeURIComponent(connectorID)}`;
      const before = cpuSnapshot();
      const webhooks = await measureLoop({
        scenario: `payments Stripe webhook ingestion, ${events} signed charge.succeeded events`,
        unit: 'events/s',
        concurrency: WEBHOOK_CONCURRENCY,
        total: events,
        operation: async (i) => {
          const answer = await client.request('POST', path, signed[i].payload, { 'Stripe-Signature': signed[i].signature });
          if (answer.status !== 204) throw new Error(`event ${i} answered ${answer.status}: ${answer.text.slice(0, 200)}`);
        },
      }).finally(() => client.close());
      const after = cpuSnapshot();
      await settle(platform);
      const added = (await stored()) - fetched;
      webhooks.errors += Math.abs(events - added);
      webhooks.notes =
        `${WEBHOOK_CONCURRENCY} concurrent senders, each event verified (Stripe-Signature) and stored before its 204; ${added} payments added; ` +
        `CPU ms per event: ${cpuPerOperation(before, after, events)}`;
      return [fetch, webhooks];
    } finally {
      // The uninstall task deletes the webhook endpoints at the fake: it ends before the fake does.
      if (connectorID) {
        await call(platform, token, 'DELETE', `/api/payments/v3/connectors/${connectorID}`, undefined, [202]);
        const { client, connection } = await createTemporalClient({ address: platform.temporalAddress, namespace: 'default' });
        try {
          await client.workflow.getHandle(`${connectorLabel({ id: connectorID, provider: 'stripe', name })}-uninstall`).result();
        } finally {
          await connection.close();
        }
      }
      await fake.close();
    }
  },
};

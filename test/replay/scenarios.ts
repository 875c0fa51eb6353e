import { createDb } from '../../db/knex';
import { accountId, paymentId } from '../../areas/payments/ids';
import { api } from '../support/http';
import { fund } from '../support/ledger-fixtures';
import { newLedger } from '../support/ledger';
import { pollUntil } from '../support/eventually';
import { createWorkflow, readInstance, runInstance, stageHistory } from '../support/orchestration';
import { installSimulated, simulatedDirectory } from '../support/payments';
import { taskQueue, temporalClient } from '../support/temporal';
import { newWallet } from '../support/wallets';
import { startReceiver } from '../support/webhook-receiver';
import { startMangopayFake } from '../support/mangopay-fake';

/**
 * The runs whose Temporal histories are committed under test/replay/histories and replayed by replay.test.ts: every
 * workflow type of workflows/index.ts, and each distinct path of the instance workflow. A scenario runs through the API
 * and returns the workflow id of each history it records (`records` names them); `npm run replay:record` runs them
 * all against a fresh platform, waits until each recorded workflow has closed and rewrites the files.
 */
export interface Scenario {
  records: string[];
  run: () => Promise<Record<string, string>>;
}

/** A scenario that records one orchestration instance under its own name. */
const instance = (name: string, run: () => Promise<string>): [string, Scenario] => [
  name,
  { records: [name], run: async () => ({ [name]: await run() }) },
];

const account = (id: string, ledger: string) => ({ account: { id, ledger } });
const read = async (path: string) => (await api('GET', path)).body;

async function expectStatus(promise: Promise<{ status: number; text: string }>, status: number): Promise<void> {
  const res = await promise;
  if (res.status !== status) throw new Error(`expected ${status}, got ${res.status} ${res.text}`);
}

export const scenarios: Record<string, Scenario> = Object.fromEntries([
  instance('noop-delay', async () => {
    const workflowID = await createWorkflow([{ noop: {} }, { delay: { duration: '200ms' } }]);
    return (await runInstance(workflowID, {}, true)).body.data.id;
  }),

  instance('no-stage', async () => {
    const workflowID = await createWorkflow([]);
    return (await runInstance(workflowID, {}, true)).body.data.id;
  }),

  instance('wait-event-early', async () => {
    const workflowID = await createWorkflow([{ delay: { duration: '300ms' } }, { wait_event: { event: 'approved' } }]);
    const id = (await runInstance(workflowID)).body.data.id;
    await api('POST', `/api/orchestration/v2/instances/${id}/events`, { body: { name: 'approved' } });
    await pollUntil(
      () => readInstance(id),
      (i) => i.terminated,
    );
    return id;
  }),

  instance('abort-waiting', async () => {
    const workflowID = await createWorkflow([{ wait_event: { event: 'never' } }, { noop: {} }]);
    const id = (await runInstance(workflowID)).body.data.id;
    await pollUntil(
      () => readInstance(id),
      (i) => i.status.length === 1,
    );
    await api('PUT', `/api/orchestration/v2/instances/${id}/abort`);
    await pollUntil(
      () => readInstance(id),
      (i) => i.terminated,
    );
    return id;
  }),

  instance('abort-send-retrying', async () => {
    // Aborted while its send is retried for funds: the step's activity is cancelled, the stage and the run end canceled.
    const ledger = await newLedger('replay');
    const workflowID = await createWorkflow([
      { send: { source: account('empty', ledger), destination: account('dest', ledger), amount: { asset: 'USD/2', amount: 100 } } },
      { noop: {} },
    ]);
    const id = (await runInstance(workflowID)).body.data.id;
    await pollUntil(
      async () => (await stageHistory(id, 0)).body.data,
      (e) => Array.isArray(e) && e[0]?.attempt >= 2,
    );
    await expectStatus(api('PUT', `/api/orchestration/v2/instances/${id}/abort`), 204);
    await pollUntil(
      () => readInstance(id),
      (i) => i.terminated,
    );
    return id;
  }),

  instance('invalid-stage', async () => {
    const workflowID = await createWorkflow([{ delay: { duration: '${d}' } }, { noop: {} }]);
    return (await runInstance(workflowID, { d: 'never' }, true)).body.data.id;
  }),

  instance('send-cross-ledger', async () => {
    const [from, to] = [await newLedger('replay'), await newLedger('replay')];
    await fund(from, 'users:1', 500);
    const workflowID = await createWorkflow([
      { send: { source: account('users:1', from), destination: account('bank', to), amount: { asset: 'USD/2', amount: 200 } } },
    ]);
    return (await runInstance(workflowID, {}, true)).body.data.id;
  }),

  instance('send-retry-until-funded', async () => {
    const ledger = await newLedger('replay');
    const workflowID = await createWorkflow([
      { send: { source: account('empty', ledger), destination: account('dest', ledger), amount: { asset: 'USD/2', amount: 100 } } },
    ]);
    const id = (await runInstance(workflowID)).body.data.id;
    await pollUntil(
      async () => (await stageHistory(id, 0)).body.data,
      (e) => Array.isArray(e) && e[0]?.attempt >= 2,
    );
    await fund(ledger, 'empty', 100);
    await pollUntil(
      () => readInstance(id),
      (i) => i.terminated,
      { timeoutMs: 60_000 },
    );
    return id;
  }),

  // Wallets: account -> wallet by id (GetWallet, CreditWallet), wallet by name -> account across ledgers
  // (ListWallets, DebitWallet, CreateTransaction).
  instance('send-wallets', async () => {
    const ledger = await newLedger('replay');
    const name = `replay-${Date.now()}`;
    const wallet = await newWallet(name); // creates the wallets ledger on a fresh platform
    await fund('wallets', 'users:replay', 300);
    const workflowID = await createWorkflow([
      { send: { source: account('users:replay', 'wallets'), destination: { wallet: { id: wallet } }, amount: { asset: 'USD/2', amount: 300 } } },
      { send: { source: { wallet: { name } }, destination: account('bank', ledger), amount: { asset: 'USD/2', amount: 120 } } },
    ]);
    return (await runInstance(workflowID, {}, true)).body.data.id;
  }),

  // Payments through the simulated connector: an instance sending from a payment and to a payment, the transfer it
  // initiates, a refused initiation, and a bank account forward.
  [
    'payments',
    {
      records: ['send-payments', 'payment-initiation-execute', 'payment-initiation-failed', 'bank-account-forward'],
      async run() {
        const dir = simulatedDirectory({
          'accounts.json': [
            { reference: 'treasury', type: 'INTERNAL' },
            { reference: 'payout', type: 'EXTERNAL' },
          ],
          'balances.json': [{ accountReference: 'treasury', asset: 'EUR/2', amount: 10 }],
          'payments.json': [
            {
              reference: 'in-1',
              type: 'PAY-IN',
              status: 'SUCCEEDED',
              amount: 1500,
              asset: 'EUR/2',
              createdAt: '2024-05-01T10:00:00Z',
              destinationAccountReference: 'treasury',
            },
          ],
        });
        const connectorID = await installSimulated(dir, '1s');
        const payment = paymentId(connectorID, 'in-1');
        await pollUntil(
          () => api('GET', `/api/payments/payments/${payment}`),
          (res) => res.status === 200,
        );
        const ledger = await newLedger('replay');
        await api('POST', `/api/ledger/v2/${ledger}/accounts/bank/metadata`, { body: { formanceAccountID: accountId(connectorID, 'payout') } });
        const workflowID = await createWorkflow([
          { send: { source: { payment: { id: payment } }, destination: account('bank', ledger) } },
          { send: { source: account('bank', ledger), destination: { payment: { psp: 'simulated' } }, amount: { asset: 'EUR/2', amount: 600 } } },
        ]);
        const id = (await runInstance(workflowID, {}, true)).body.data.id;
        const transfer = (await stageHistory(id, 1)).body.data.find((e: { name: string }) => e.name === 'ProviderTransfer');
        const initiation = transfer.output.ProviderTransfer.data.paymentInitiationID;
        await pollUntil(
          () => read(`/api/payments/v3/payment-initiations/${initiation}`),
          (b) => b.data.status === 'PROCESSED',
        );

        // The treasury holds 10: a transfer of 500 from it is refused by the simulator (insufficient funds).
        const refused = await api('POST', '/api/payments/v3/payment-initiations?noValidation=true', {
          body: {
            reference: `refused-${Date.now()}`,
            connectorID,
            type: 'TRANSFER',
            amount: 500,
            asset: 'EUR/2',
            sourceAccountID: accountId(connectorID, 'treasury'),
            destinationAccountID: accountId(connectorID, 'payout'),
            description: 'replay',
          },
        });
        const refusedID = refused.body.data.paymentInitiationID;
        await pollUntil(
          () => read(`/api/payments/v3/payment-initiations/${refusedID}`),
          (b) => b.data.status === 'FAILED',
        );

        const bankAccount = (
          await api('POST', '/api/payments/v3/bank-accounts', { body: { name: 'replay', iban: 'FR7630006000011234567890189', country: 'FR' } })
        ).body.data;
        const forward = await api('POST', `/api/payments/v3/bank-accounts/${bankAccount}/forward`, { body: { connectorID } });
        if (forward.status !== 202) throw new Error(`forward: expected 202, got ${forward.status} ${forward.text}`);
        await pollUntil(
          () => read(`/api/payments/v3/tasks/${forward.body.data.taskID}`),
          (b) => b.data.status === 'SUCCEEDED',
        );

        await expectStatus(api('DELETE', `/api/payments/v3/connectors/${connectorID}`), 202);
        return {
          'send-payments': id,
          'payment-initiation-execute': `payment-initiation-${initiation}-1`,
          'payment-initiation-failed': `payment-initiation-${refusedID}-1`,
          'bank-account-forward': `bank-account-${bankAccount}-forward-${connectorID}`,
        };
      },
    },
  ],

  // A connector's schedules and tasks: its install's first fetch, one completed run of its payments schedule, a reset,
  // an uninstall.
  [
    'payments-connectors',
    {
      records: ['connector-install', 'connector-poll', 'connector-reset', 'connector-uninstall'],
      async run() {
        const dir = simulatedDirectory({
          'accounts.json': [{ reference: 'main' }],
          'payments.json': [
            { reference: 'p-1', type: 'PAY-IN', status: 'SUCCEEDED', amount: 100, asset: 'EUR/2', createdAt: '2024-05-01T10:00:00Z' },
          ],
        });
        const connectorID = await installSimulated(dir, '1s');
        const base = `/api/payments/v3/connectors/${connectorID}`;
        const schedule = (await read(`${base}/schedules`)).cursor.data.find((s: { kind: string }) => s.kind === 'payments').id;
        const [poll] = await pollUntil(
          async () => (await read(`${base}/schedules/${schedule}/instances`)).cursor.data,
          (l) => l.length > 0 && l[0].terminated,
        );
        const reset = (await api('POST', `${base}/reset`)).body.data;
        await pollUntil(
          () => read(`/api/payments/v3/tasks/${reset}`),
          (b) => b.data.status === 'SUCCEEDED',
        );
        const uninstall = (await api('DELETE', base)).body.data.taskID;
        await pollUntil(
          () => read(`/api/payments/v3/tasks/${uninstall}`),
          (b) => b.data.status === 'SUCCEEDED',
        );
        return {
          'connector-install': schedule.replace(/-payments$/, '-install'),
          'connector-poll': poll.id,
          'connector-reset': reset,
          'connector-uninstall': uninstall,
        };
      },
    },
  ],

  // An unsigned provider callback (Mangopay's, against its fake): a pay-in settled after the install's fetch, read
  // back by the callback's workflow and stored.
  [
    'connector-callback',
    {
      records: ['connector-callback'],
      async run() {
        const fake = await startMangopayFake();
        try {
          const wallet = fake.addWallet(fake.addUser('Replay').Id, 'EUR', 0, 'Replay EUR').Id;
          const payIn = fake.addPayIn(wallet, 2_500, 'CREATED').Id;
          const install = await api('POST', '/api/payments/v3/connectors/install/mangopay', {
            body: {
              name: `replay-${Date.now().toString(36)}`,
              clientID: fake.clientID,
              apiKey: fake.apiKey,
              endpoint: fake.url,
              pollingPeriod: '1h',
            },
          });
          if (install.status !== 202) throw new Error(`install answered ${install.status} ${install.text}`);
          const connectorID = install.body.data as string;
          // The install registers its hooks first, then fetches: once the pay-in is stored CREATED, both are done.
          await pollUntil(
            async () => (await read(`/api/payments/v3/payments?pageSize=100`)).cursor.data.find((p: { reference: string }) => p.reference === payIn),
            (p) => p !== undefined,
          );
          fake.clock.now += 10;
          fake.settle(payIn, 'SUCCEEDED');
          const callback = await api('GET', fake.hookCall('PAYIN_NORMAL_SUCCEEDED', payIn), { token: null });
          if (callback.status !== 200) throw new Error(`callback answered ${callback.status} ${callback.text}`);
          const { client, connection } = await temporalClient();
          try {
            await client.workflow.getHandle(callback.body.data).result();
          } finally {
            await connection.close();
          }
          const uninstall = (await api('DELETE', `/api/payments/v3/connectors/${connectorID}`)).body.data.taskID;
          await pollUntil(
            () => read(`/api/payments/v3/tasks/${uninstall}`),
            (b) => b.data.status === 'SUCCEEDED',
          );
          return { 'connector-callback': callback.body.data as string };
        } finally {
          await fake.close();
        }
      },
    },
  ],

  // A reversal of part of a processed transfer through the simulated connector.
  [
    'payments-reversal',
    {
      records: ['payment-initiation-reverse'],
      async run() {
        const dir = simulatedDirectory({
          'accounts.json': [
            { reference: 'treasury', type: 'INTERNAL' },
            { reference: 'payout', type: 'EXTERNAL' },
          ],
        });
        const connectorID = await installSimulated(dir, '1s');
        await pollUntil(
          () => api('GET', `/api/payments/v3/accounts/${accountId(connectorID, 'payout')}`),
          (res) => res.status === 200,
        );
        const created = await api('POST', '/api/payments/v3/payment-initiations?noValidation=true', {
          body: {
            reference: `reversed-${Date.now()}`,
            connectorID,
            type: 'TRANSFER',
            amount: 500,
            asset: 'EUR/2',
            sourceAccountID: accountId(connectorID, 'treasury'),
            destinationAccountID: accountId(connectorID, 'payout'),
            description: 'replay',
          },
        });
        const initiation = created.body.data.paymentInitiationID;
        await pollUntil(
          () => read(`/api/payments/v3/payment-initiations/${initiation}`),
          (b) => b.data.status === 'PROCESSED',
        );
        const reversal = await api('POST', `/api/payments/v3/payment-initiations/${initiation}/reverse`, {
          body: { reference: `reversal-${Date.now()}`, amount: 200, asset: 'EUR/2', description: 'replay' },
        });
        if (reversal.status !== 202) throw new Error(`reverse: expected 202, got ${reversal.status} ${reversal.text}`);
        await pollUntil(
          () => read(`/api/payments/v3/tasks/${reversal.body.data.taskID}`),
          (b) => b.data.status === 'SUCCEEDED',
        );
        await expectStatus(api('DELETE', `/api/payments/v3/connectors/${connectorID}`), 202);
        return { 'payment-initiation-reverse': reversal.body.data.taskID };
      },
    },
  ],

  // A payment service user's asynchronous deletion.
  [
    'payments-psu',
    {
      records: ['payment-service-user-delete'],
      async run() {
        const user = (await api('POST', '/api/payments/v3/payment-service-users', { body: { name: 'replay' } })).body.data;
        const deleted = await api('DELETE', `/api/payments/v3/payment-service-users/${user}`);
        if (deleted.status !== 202) throw new Error(`psu delete: expected 202, got ${deleted.status} ${deleted.text}`);
        await pollUntil(
          () => read(`/api/payments/v3/tasks/${deleted.body.data.taskID}`),
          (b) => b.data.status === 'SUCCEEDED',
        );
        return { 'payment-service-user-delete': deleted.body.data.taskID };
      },
    },
  ],

  // Open banking on the simulated connector: a user forwarded, a consent approved and one refused in the end user's
  // browser, a connection deleted, the user removed from the connector, and a user deleted while registered there.
  [
    'payments-open-banking',
    {
      records: [
        'payment-service-user-forward',
        'open-banking-complete-link',
        'open-banking-complete-link-rejected',
        'open-banking-delete-connection',
        'open-banking-delete-psu-connector',
        'payment-service-user-delete-open-banking',
      ],
      async run() {
        const connectorID = await installSimulated(simulatedDirectory({ 'psu-accounts.json': [{ reference: 'checking' }] }), '1h');
        const users = '/api/payments/v3/payment-service-users';
        const newUser = async () => {
          const user = (await api('POST', users, { body: { name: 'replay' } })).body.data as string;
          await expectStatus(api('POST', `${users}/${user}/connectors/${connectorID}/forward`), 204);
          return user;
        };
        const consent = async (user: string, decision: 'approve' | 'reject') => {
          const { attemptID, link } = (
            await api('POST', `${users}/${user}/connectors/${connectorID}/create-link`, { body: { clientRedirectURL: 'https://app.example/back' } })
          ).body;
          const res = await fetch(`${link}&decision=${decision}&noRedirect=true`);
          if (res.status !== 204) throw new Error(`consent: expected 204, got ${res.status}`);
          await pollUntil(
            () => read(`${users}/${user}/connectors/${connectorID}/link-attempts/${attemptID}`),
            (b) => b.status !== 'pending',
          );
          return attemptID as string;
        };
        const task = async (path: string) => {
          const taskID = (await api('DELETE', path)).body.data.taskID as string;
          await pollUntil(
            () => read(`/api/payments/v3/tasks/${taskID}`),
            (b) => b.data.status === 'SUCCEEDED',
          );
          return taskID;
        };
        const first = await newUser();
        const approved = await consent(first, 'approve');
        const rejected = await consent(first, 'reject');
        const deleteConnection = await task(`${users}/${first}/connectors/${connectorID}/connections/conn-${approved}`);
        await consent(first, 'approve');
        const deletePsuConnector = await task(`${users}/${first}/connectors/${connectorID}`);
        const second = await newUser();
        await consent(second, 'approve');
        const deleteUser = await task(`${users}/${second}`);
        return {
          'payment-service-user-forward': `payment-service-user-${first}-forward-${connectorID}`,
          'open-banking-complete-link': `open-banking-link-attempt-${approved}`,
          'open-banking-complete-link-rejected': `open-banking-link-attempt-${rejected}`,
          'open-banking-delete-connection': deleteConnection,
          'open-banking-delete-psu-connector': deletePsuConnector,
          'payment-service-user-delete-open-banking': deleteUser,
        };
      },
    },
  ],

  // Events: a ledger transaction's event matches a trigger that starts an instance (its event batch workflow is
  // recorded by the webhooks scenario).
  [
    'events',
    {
      records: ['trigger-started'],
      async run() {
        const ledger = await newLedger('replay');
        const workflowID = await createWorkflow([
          {
            send: {
              source: account('world', ledger),
              destination: account('bonus:${user}', ledger),
              amount: { asset: 'USD/2', amount: '${amount}' },
            },
          },
        ]);
        const trigger = (
          await api('POST', '/api/orchestration/triggers', {
            body: {
              event: 'COMMITTED_TRANSACTIONS',
              workflowID,
              filter: `event.ledger == "${ledger}" && event.transactions[0].postings[0].destination == "users:ann"`,
              vars: { user: '"ann"', amount: 'event.transactions[0].postings[0].amount / 10' },
            },
          })
        ).body.data.id;
        await fund(ledger, 'users:ann', 1000);
        const [occurrence] = await pollUntil(
          async () => (await read(`/api/orchestration/triggers/${trigger}/occurrences`)).cursor.data,
          (l) => l.length === 1,
        );
        await pollUntil(
          () => readInstance(occurrence.workflowInstanceID),
          (i) => i.terminated,
        );
        await api('DELETE', `/api/orchestration/triggers/${trigger}`);
        return { 'trigger-started': occurrence.workflowInstanceID };
      },
    },
  ],

  // Webhooks: a ledger transaction's event batch whose one delivery fails for good at its first attempt (400); op 16.
  [
    'webhooks',
    {
      records: ['process-event-batch', 'test-webhook'],
      async run() {
        const ledger = await newLedger('replay');
        const ok = await startReceiver((n) => ({ status: n === 1 ? 400 : 200 }));
        const { client, connection } = await temporalClient();
        const db = createDb(process.env.TEST_DATABASE_URL as string, { poolMax: 1 });
        try {
          const okConfig = (await api('POST', '/api/webhooks/configs', { body: { endpoint: ok.url, eventTypes: ['ledger.committed_transactions'] } }))
            .body.data.id as string;
          await fund(ledger, 'users:first', 100);
          const first = await pollUntil(
            async () => (await read(`/api/webhooks/deliveries?configId=${okConfig}`)).cursor.data[0],
            (d) => d?.status === 'failed',
          );
          const batch = `events-${(await db('events_outbox').where({ id: first.eventID }).first('batch_id')).batch_id}`;

          await expectStatus(api('GET', `/api/webhooks/configs/${okConfig}/test`), 200);
          // The op 16 workflow id ends with a random UUID: find it in Temporal's visibility store.
          const testRun = await pollUntil(
            async () => {
              for await (const execution of client.workflow.list({
                query: `WorkflowType = 'testWebhook' AND WorkflowId STARTS_WITH 'webhook-test-${okConfig}-'`,
              }))
                return execution.workflowId;
              return undefined;
            },
            (found) => found !== undefined,
          );
          await api('DELETE', `/api/webhooks/configs/${okConfig}`);
          return { 'process-event-batch': batch, 'test-webhook': testRun as string };
        } finally {
          await db.destroy();
          await connection.close();
          await ok.close();
        }
      },
    },
  ],

  // Webhooks with per-endpoint retries: an event batch whose one delivery fails twice with 500 (the batch's attempt
  // queues it), and the endpoint's drain that probes it on its backoff and succeeds.
  [
    'webhook-endpoint',
    {
      records: ['webhook-endpoint', 'process-event-batch-queued'],
      async run() {
        const ledger = await newLedger('replay');
        const flaky = await startReceiver((n) => ({ status: n <= 2 ? 500 : 200 }));
        const db = createDb(process.env.TEST_DATABASE_URL as string, { poolMax: 1 });
        try {
          const configID = (
            await api('POST', '/api/webhooks/configs', { body: { endpoint: flaky.url, eventTypes: ['ledger.committed_transactions'] } })
          ).body.data.id as string;
          await fund(ledger, 'users:queued', 100);
          const delivery = await pollUntil(
            async () => (await read(`/api/webhooks/deliveries?configId=${configID}`)).cursor.data[0],
            (d) => d?.status === 'succeeded',
          );
          if (delivery.attemptCount !== 3) throw new Error(`expected three attempts, got ${delivery.attemptCount}`);
          const batch = `events-${(await db('events_outbox').where({ id: delivery.eventID }).first('batch_id')).batch_id}`;
          await api('DELETE', `/api/webhooks/configs/${configID}`);
          return { 'webhook-endpoint': `webhook-endpoint-${configID}-1`, 'process-event-batch-queued': batch };
        } finally {
          await db.destroy();
          await flaky.close();
        }
      },
    },
  ],

  // A ledger pipeline: export, a reset (its wake signal) and a second export, then the stop that cancels the run.
  [
    'ledger-pipeline',
    {
      records: ['ledger-pipeline'],
      async run() {
        const receiver = await startReceiver();
        try {
          const ledger = await newLedger('replay-pipeline');
          await fund(ledger, 'users:1', 100);
          await fund(ledger, 'users:2', 200);
          const exporter = (await api('POST', '/api/ledger/v2/_/exporters', { body: { driver: 'http', config: { url: receiver.url } } })).body.data;
          const pipeline = (await api('POST', `/api/ledger/v2/${ledger}/pipelines`, { body: { exporterID: exporter.id } })).body.data;
          const state = () => read(`/api/ledger/v2/${ledger}/pipelines/${pipeline.id}`);
          await pollUntil(state, (s) => s.data.lastLogID === 1);
          await expectStatus(api('POST', `/api/ledger/v2/${ledger}/pipelines/${pipeline.id}/reset`), 202);
          await pollUntil(
            async () => receiver.received.length,
            (n) => n >= 2,
          );
          await pollUntil(state, (s) => s.data.lastLogID === 1);
          await expectStatus(api('POST', `/api/ledger/v2/${ledger}/pipelines/${pipeline.id}/stop`), 202);
          return { 'ledger-pipeline': `ledger-pipeline-${ledger}-${pipeline.id}` };
        } finally {
          await receiver.close();
        }
      },
    },
  ],

  // A reconciliation rule's scheduled run: a cron rule's Schedule starts it; it evaluates the rule once (recorded).
  [
    'reconciliation-rule-run',
    {
      records: ['reconciliation-rule-run'],
      async run() {
        const ledger = await newLedger('replay-recon');
        await fund(ledger, 'banks:main', 100);
        const rule = (
          await api('POST', '/api/reconciliation/rules', {
            body: {
              name: 'replay',
              templateKind: 'ledger_invariant',
              templateSpec: { ledger },
              schedule: { kind: 'cron', expr: '@every 1s', safetyMargin: '0s' },
            },
          })
        ).body.data;
        const { client, connection } = await temporalClient();
        try {
          const handle = client.schedule.getHandle(`reconciliation-rule-${rule.id}`);
          const described = await pollUntil(
            () => handle.describe(),
            (d) => d.info.recentActions.length > 0,
          );
          const filter = encodeURIComponent(JSON.stringify({ ruleID: rule.id }));
          await pollUntil(
            () => read(`/api/reconciliation/evaluations?query=${filter}`),
            (b) => b.cursor.data.length > 0,
          );
          await expectStatus(api('DELETE', `/api/reconciliation/rules/${rule.id}`), 204);
          return { 'reconciliation-rule-run': described.info.recentActions[0].action.workflow.workflowId };
        } finally {
          await connection.close();
        }
      },
    },
  ],

  // The foundation's workflows: the self-test (worker, activities and database answer) and the benchmarks' no-op.
  [
    'foundation',
    {
      records: ['platform-self-test', 'platform-noop'],
      async run() {
        const { client, connection } = await temporalClient();
        try {
          const start = async (type: string, args: unknown[]) => {
            const workflowId = `replay-${type}-${Date.now()}`;
            await client.workflow.execute(type, { taskQueue: taskQueue(), workflowId, args });
            return workflowId;
          };
          return { 'platform-self-test': await start('platformSelfTest', ['replay']), 'platform-noop': await start('platformNoop', []) };
        } finally {
          await connection.close();
        }
      },
    },
  ],
]);

/** Every history name, in recording order. */
export const historyNames = (): string[] => Object.values(scenarios).flatMap((s) => s.records);

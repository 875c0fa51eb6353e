import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { WorkflowFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { currentCall, startWorkflowTier, workflowId, type CallRecord, type WorkflowTier } from './support';

const ACTIVITIES = [
  'paymentsFetchAccounts',
  'paymentsFetchBalances',
  'paymentsFetchPayments',
  'paymentsFetchConversions',
  'paymentsFetchOrders',
  'paymentsCreateWebhooks',
  'paymentsDeleteConnectorSchedules',
  'paymentsDeleteWebhooks',
  'paymentsRecreateConnectorSchedules',
  'paymentsMarkInitiationProcessing',
  'paymentsSendInitiation',
  'paymentsFailInitiation',
  'paymentsSendReversal',
  'paymentsFailReversal',
  'paymentsForwardBankAccount',
  'paymentsDeletePaymentServiceUser',
  'paymentsOpenBankingForward',
  'paymentsOpenBankingCompleteLink',
  'paymentsOpenBankingExitLink',
  'paymentsOpenBankingDeleteConnection',
  'paymentsOpenBankingDeleteUser',
  'paymentsOpenBankingConnectionsOf',
  'paymentsOpenBankingConnectorsOf',
  'paymentsTranslateWebhook',
];

let tier: WorkflowTier;
let env: TestWorkflowEnvironment;
beforeAll(async () => {
  tier = await startWorkflowTier(ACTIVITIES);
  env = tier.env;
});
afterAll(async () => {
  await tier?.teardown();
});

const execute = <T>(type: string, mocks: object, ...args: unknown[]) =>
  tier.run(mocks, (taskQueue) => env.client.workflow.execute(type, { taskQueue, workflowId: workflowId(type), args })) as Promise<T>;
const failureOf = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (e: unknown) => e,
  );
const gaps = (calls: CallRecord[]) => calls.slice(1).map((call, i) => call.at - calls[i].at);
const down = () => ApplicationFailure.create({ message: 'provider down' });
/** An activity mock that fails `failures` times with `error`, then answers `value`, recording each call. */
function flaky<T>(failures: number, value: T, error: () => Error = down) {
  const calls: CallRecord[] = [];
  const fn = async () => {
    calls.push(await currentCall(env));
    if (calls.length <= failures) throw error();
    return value;
  };
  return { calls, fn };
}

/** A log of the activities called, in order, with their arguments. */
function recorder() {
  const log: Array<[string, ...unknown[]]> = [];
  const answer =
    (name: string, value: unknown = undefined) =>
    async (...args: unknown[]) => {
      log.push([name, ...args]);
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown)(...args) : value;
    };
  return { log, answer };
}

describe('connectorPoll (a schedule tick)', () => {
  it('fetches its one kind and returns what changed', async () => {
    const { log, answer } = recorder();
    const result = await execute('connectorPoll', { paymentsFetchBalances: answer('balances', 4) }, { connectorID: 'c1', kind: 'balances' });
    expect(result).toEqual({ changed: 4 });
    expect(log).toEqual([['balances', 'c1']]);
  });

  it('retries a failing provider with backoff from 500 ms, five attempts in all, then fails the tick', async () => {
    const { calls, fn } = flaky(10, 0);
    const error = await failureOf(execute('connectorPoll', { paymentsFetchPayments: fn }, { connectorID: 'c1', kind: 'payments' }));
    expect(error).toBeInstanceOf(WorkflowFailedError);
    expect(calls.map((c) => c.attempt)).toEqual([1, 2, 3, 4, 5]);
    [500, 1000, 2000, 4000].forEach((interval, i) => expect(gaps(calls)[i]).toBeGreaterThanOrEqual(interval));
  });

  it('recovers when the provider is back within the retries', async () => {
    const { calls, fn } = flaky(2, 7);
    expect(await execute('connectorPoll', { paymentsFetchAccounts: fn }, { connectorID: 'c1', kind: 'accounts' })).toEqual({ changed: 7 });
    expect(calls).toHaveLength(3);
  });

  it('ends quietly, without retrying, when the connector is uninstalled', async () => {
    const { calls, fn } = flaky(10, 0, () => ApplicationFailure.create({ message: 'gone', type: 'NOT_INSTALLED' }));
    expect(await execute('connectorPoll', { paymentsFetchOrders: fn }, { connectorID: 'c1', kind: 'orders' })).toEqual({ changed: 0 });
    expect(calls).toHaveLength(1);
  });
});

describe('connectorInstall, connectorReset, connectorUninstall', () => {
  const fetchAll = (answer: ReturnType<typeof recorder>['answer']) => ({
    paymentsFetchAccounts: answer('accounts', 1),
    paymentsFetchBalances: answer('balances', 2),
    paymentsFetchPayments: answer('payments', 3),
    paymentsFetchConversions: answer('conversions', 4),
    paymentsFetchOrders: answer('orders', 5),
  });

  it('install registers its webhooks first, then fetches every kind once, accounts first, and sums the changes', async () => {
    const { log, answer } = recorder();
    const mocks = { ...fetchAll(answer), paymentsCreateWebhooks: answer('webhooks', 2) };
    expect(await execute('connectorInstall', mocks, { connectorID: 'c1' })).toEqual({ connectorID: 'c1', changed: 15, webhooks: 2 });
    expect(log.map(([name]) => name)).toEqual(['webhooks', 'accounts', 'balances', 'payments', 'conversions', 'orders']);
  });

  it('install still fetches when the provider refuses the webhook registration, and says why', async () => {
    const { log, answer } = recorder();
    const { calls, fn } = flaky(1, 0, () =>
      ApplicationFailure.create({ message: 'PUBLIC_URL is not reachable by the provider', type: 'INVALID_ARGUMENT' }),
    );
    const result = await execute('connectorInstall', { ...fetchAll(answer), paymentsCreateWebhooks: fn }, { connectorID: 'c1' });
    expect(result).toEqual({ connectorID: 'c1', changed: 15, webhooksError: 'PUBLIC_URL is not reachable by the provider' });
    expect(calls).toHaveLength(1);
    expect(log.map(([name]) => name)).toEqual(['accounts', 'balances', 'payments', 'conversions', 'orders']);
  });

  it('reset recreates the schedules first, then fetches everything in order', async () => {
    const { log, answer } = recorder();
    const mocks = { ...fetchAll(answer), paymentsRecreateConnectorSchedules: answer('recreate') };
    expect(await execute('connectorReset', mocks, { connectorID: 'c1' })).toEqual({ connectorID: 'c1', changed: 15 });
    expect(log.map(([name]) => name)).toEqual(['recreate', 'accounts', 'balances', 'payments', 'conversions', 'orders']);
  });

  it('uninstall deletes the schedules, retried while the database is down, then the webhooks registered at the provider', async () => {
    const { calls, fn } = flaky(3, undefined);
    const { log, answer } = recorder();
    expect(
      await execute(
        'connectorUninstall',
        { paymentsDeleteConnectorSchedules: fn, paymentsDeleteWebhooks: answer('webhooks', 2) },
        { connectorID: 'c1' },
      ),
    ).toEqual({ connectorID: 'c1', webhooksDeleted: 2 });
    expect(calls).toHaveLength(4);
    expect(log.map(([name]) => name)).toEqual(['webhooks']);
  });

  it('uninstall succeeds when the provider refuses to delete its webhooks, and says why', async () => {
    const { fn } = flaky(1, 0, () => ApplicationFailure.create({ message: 'Stripe answered 401', type: 'PROVIDER_REJECTED', nonRetryable: true }));
    const result = await execute(
      'connectorUninstall',
      { paymentsDeleteConnectorSchedules: async () => undefined, paymentsDeleteWebhooks: fn },
      { connectorID: 'c1' },
    );
    expect(result).toEqual({ connectorID: 'c1', webhooksError: 'Stripe answered 401' });
  });
});

describe('connectorCallback (an unsigned provider callback)', () => {
  const input = { connectorID: 'c1', query: { EventType: 'PAYOUT_NORMAL_SUCCEEDED', RessourceId: 'po_1', Date: '1' } };

  it('translates the callback, retried with backoff from 1 s while the provider is down, and returns the rows changed', async () => {
    const translate = flaky(2, 1);
    expect(await execute('connectorCallback', { paymentsTranslateWebhook: translate.fn }, input)).toBe(1);
    expect(translate.calls.map((c) => c.attempt)).toEqual([1, 2, 3]);
    const [first, second] = gaps(translate.calls);
    expect(first).toBeGreaterThanOrEqual(1000);
    expect(second).toBeGreaterThanOrEqual(2000);
  });

  it('fails at once, without retrying, when the provider rejects the resource (a forged callback)', async () => {
    const translate = flaky(1, 0, () => ApplicationFailure.create({ message: 'not found at the provider', type: 'PROVIDER_REJECTED' }));
    const failure = await failureOf(execute('connectorCallback', { paymentsTranslateWebhook: translate.fn }, input));
    expect(failure).toBeInstanceOf(WorkflowFailedError);
    expect(translate.calls).toHaveLength(1);
  });

  it('gives up after ten attempts', async () => {
    const translate = flaky(20, 1);
    const failure = await failureOf(execute('connectorCallback', { paymentsTranslateWebhook: translate.fn }, input));
    expect(failure).toBeInstanceOf(WorkflowFailedError);
    expect(translate.calls).toHaveLength(10);
  });
});

describe('paymentInitiationExecute', () => {
  it('marks the attempt PROCESSING, sends it and returns the payment', async () => {
    const { log, answer } = recorder();
    const mocks = {
      paymentsMarkInitiationProcessing: answer('processing'),
      paymentsSendInitiation: answer('send', 'pay-1'),
      paymentsFailInitiation: answer('fail'),
    };
    expect(await execute('paymentInitiationExecute', mocks, { paymentInitiationID: 'pi', attempt: 2 })).toEqual({
      status: 'PROCESSED',
      paymentID: 'pay-1',
    });
    expect(log).toEqual([
      ['processing', 'pi', 2],
      ['send', 'pi', 2],
    ]);
  });

  it("a provider refusal is not retried: the attempt FAILS with the provider's message", async () => {
    const { log, answer } = recorder();
    const { calls, fn } = flaky(1, 'never', () =>
      ApplicationFailure.create({ message: 'insufficient funds at the bank', type: 'PROVIDER_REJECTED' }),
    );
    const mocks = { paymentsMarkInitiationProcessing: answer('processing'), paymentsSendInitiation: fn, paymentsFailInitiation: answer('fail') };
    const result = await execute('paymentInitiationExecute', mocks, { paymentInitiationID: 'pi', attempt: 1 });
    expect(result).toEqual({ status: 'FAILED', error: 'insufficient funds at the bank' });
    expect(calls).toHaveLength(1);
    expect(log).toEqual([
      ['processing', 'pi', 1],
      ['fail', 'pi', 1, 'insufficient funds at the bank'],
    ]);
  });

  it('a provider down past five attempts FAILS the attempt', async () => {
    const { log, answer } = recorder();
    const { calls, fn } = flaky(5, 'never');
    const mocks = { paymentsMarkInitiationProcessing: answer('processing'), paymentsSendInitiation: fn, paymentsFailInitiation: answer('fail') };
    expect(await execute('paymentInitiationExecute', mocks, { paymentInitiationID: 'pi', attempt: 1 })).toEqual({
      status: 'FAILED',
      error: 'provider down',
    });
    expect(calls).toHaveLength(5);
    expect(log.at(-1)).toEqual(['fail', 'pi', 1, 'provider down']);
  });
});

describe('paymentInitiationReverse', () => {
  it('sends the reversal after a transient failure and returns the payment', async () => {
    const { calls, fn } = flaky(1, 'pay-r');
    expect(await execute('paymentInitiationReverse', { paymentsSendReversal: fn, paymentsFailReversal: jest.fn() }, { reversalID: 'r1' })).toEqual({
      status: 'PROCESSED',
      paymentID: 'pay-r',
    });
    expect(calls).toHaveLength(2);
  });

  it('a refused reversal is marked failed with the reason', async () => {
    const paymentsFailReversal = jest.fn(async () => undefined);
    const refused = async () => {
      throw ApplicationFailure.create({ message: 'already refunded', type: 'PROVIDER_REJECTED' });
    };
    expect(await execute('paymentInitiationReverse', { paymentsSendReversal: refused, paymentsFailReversal }, { reversalID: 'r1' })).toEqual({
      status: 'FAILED',
      error: 'already refunded',
    });
    expect(paymentsFailReversal).toHaveBeenCalledWith('r1', 'already refunded');
  });
});

describe('bankAccountForward', () => {
  it('retries a provider that is briefly down and returns the related account', async () => {
    const { calls, fn } = flaky(2, 'acc-1');
    expect(await execute('bankAccountForward', { paymentsForwardBankAccount: fn }, { bankAccountID: 'b1', connectorID: 'c1' })).toBe('acc-1');
    expect(calls).toHaveLength(3);
  });

  it('fails after four attempts', async () => {
    const { calls, fn } = flaky(10, 'never');
    expect(
      await failureOf(execute('bankAccountForward', { paymentsForwardBankAccount: fn }, { bankAccountID: 'b1', connectorID: 'c1' })),
    ).toBeInstanceOf(WorkflowFailedError);
    expect(calls).toHaveLength(4);
  });
});

describe('open banking', () => {
  it('paymentServiceUserForward registers the user at the provider', async () => {
    const { log, answer } = recorder();
    await execute('paymentServiceUserForward', { paymentsOpenBankingForward: answer('forward') }, { psuID: 'u1', connectorID: 'c1' });
    expect(log).toEqual([['forward', 'u1', 'c1']]);
  });

  it('openBankingCompleteLink: an approval completes the link', async () => {
    const { log, answer } = recorder();
    await execute(
      'openBankingCompleteLink',
      { paymentsOpenBankingCompleteLink: answer('complete'), paymentsOpenBankingExitLink: answer('exit') },
      { attemptID: 'a1', decision: 'approve' },
    );
    expect(log).toEqual([['complete', 'a1']]);
  });

  it('openBankingCompleteLink: a refusal exits the attempt without asking the provider', async () => {
    const { log, answer } = recorder();
    await execute(
      'openBankingCompleteLink',
      { paymentsOpenBankingCompleteLink: answer('complete'), paymentsOpenBankingExitLink: answer('exit') },
      { attemptID: 'a1', decision: 'reject' },
    );
    expect(log).toEqual([['exit', 'a1', 'the end user refused the consent']]);
  });

  it('openBankingCompleteLink: a provider failing for good exits the attempt with its reason', async () => {
    const { log, answer } = recorder();
    const { calls, fn } = flaky(10, undefined, () => ApplicationFailure.create({ message: 'bank unavailable' }));
    await execute(
      'openBankingCompleteLink',
      { paymentsOpenBankingCompleteLink: fn, paymentsOpenBankingExitLink: answer('exit') },
      { attemptID: 'a1', decision: 'approve' },
    );
    expect(calls).toHaveLength(4);
    expect(log).toEqual([['exit', 'a1', 'bank unavailable']]);
  });

  it('openBankingDeleteConnection deletes the connection at the provider', async () => {
    const { log, answer } = recorder();
    await execute(
      'openBankingDeleteConnection',
      { paymentsOpenBankingDeleteConnection: answer('delete') },
      { psuID: 'u1', connectorID: 'c1', connectionID: 'k1' },
    );
    expect(log).toEqual([['delete', 'k1']]);
  });

  it('openBankingDeletePsuConnector deletes each connection, then the user', async () => {
    const { log, answer } = recorder();
    const mocks = {
      paymentsOpenBankingConnectionsOf: answer('connections', ['k1', 'k2']),
      paymentsOpenBankingDeleteConnection: answer('delete'),
      paymentsOpenBankingDeleteUser: answer('deleteUser'),
    };
    await execute('openBankingDeletePsuConnector', mocks, { psuID: 'u1', connectorID: 'c1' });
    expect(log).toEqual([
      ['connections', 'u1', 'c1'],
      ['delete', 'k1'],
      ['delete', 'k2'],
      ['deleteUser', 'u1', 'c1'],
    ]);
  });
});

describe('paymentServiceUserDelete', () => {
  it('leaves every connector first, then deletes the user', async () => {
    const { log, answer } = recorder();
    const mocks = {
      paymentsOpenBankingConnectorsOf: answer('connectors', ['c1', 'c2']),
      paymentsOpenBankingConnectionsOf: answer('connections', (_psu: string, connector: string) => (connector === 'c1' ? ['k1'] : [])),
      paymentsOpenBankingDeleteConnection: answer('delete'),
      paymentsOpenBankingDeleteUser: answer('deleteUser'),
      paymentsDeletePaymentServiceUser: answer('deletePsu'),
    };
    await execute('paymentServiceUserDelete', mocks, { paymentServiceUserID: 'u1' });
    expect(log).toEqual([
      ['connectors', 'u1'],
      ['connections', 'u1', 'c1'],
      ['delete', 'k1'],
      ['deleteUser', 'u1', 'c1'],
      ['connections', 'u1', 'c2'],
      ['deleteUser', 'u1', 'c2'],
      ['deletePsu', 'u1'],
    ]);
  });

  it('retries the deletion while the database is unreachable', async () => {
    const { calls, fn } = flaky(3, undefined);
    const { answer } = recorder();
    await execute(
      'paymentServiceUserDelete',
      { paymentsOpenBankingConnectorsOf: answer('connectors', []), paymentsDeletePaymentServiceUser: fn },
      { paymentServiceUserID: 'u1' },
    );
    expect(calls).toHaveLength(4);
    [500, 1000, 2000].forEach((interval, i) => expect(gaps(calls)[i]).toBeGreaterThanOrEqual(interval));
  });
});

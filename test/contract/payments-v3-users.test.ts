import { isDefined, pollUntil } from '../support/eventually';
import { simulatedDirectory, suffix } from '../support/payments';
import { newBankAccount, settled, v3 } from './payments-v3-support';

/**
 * Payment service users of Formance's `payments.v3` through the official SDK, with their open-banking methods, and the
 * conversions and orders the simulated connector fetches. One test per SDK method.
 */
const PSU_BANK = {
  'psu-accounts.json': [{ reference: 'checking', type: 'INTERNAL', name: 'Checking', defaultAsset: 'EUR/2', createdAt: '2024-01-01T00:00:00Z' }],
};

describe('contract: payments.v3 payment service users through the Formance SDK', () => {
  let connectorID: string;
  beforeAll(async () => {
    const directory = simulatedDirectory({
      ...PSU_BANK,
      'accounts.json': [{ reference: 'wallet' }],
      'conversions.json': [
        {
          reference: 'conv-1',
          createdAt: '2026-01-01T00:00:00Z',
          status: 'COMPLETED',
          sourceAsset: 'USD/2',
          destinationAsset: 'USDC/6',
          sourceAmount: 10_000,
          destinationAmount: 99_990_000,
          fee: 10,
          feeAsset: 'USD/2',
          sourceAccountReference: 'wallet',
          destinationAccountReference: 'wallet',
        },
        {
          reference: 'conv-2',
          createdAt: '2026-01-02T00:00:00Z',
          status: 'PENDING',
          sourceAsset: 'EUR/2',
          destinationAsset: 'USD/2',
          sourceAmount: 500,
        },
      ],
      'orders.json': [
        {
          reference: 'ord-1',
          createdAt: '2026-01-03T00:00:00Z',
          direction: 'SELL',
          type: 'MARKET',
          status: 'FILLED',
          timeInForce: 'IMMEDIATE_OR_CANCEL',
          sourceAsset: 'BTC/8',
          destinationAsset: 'USD/2',
          baseQuantityOrdered: 50_000_000,
          baseQuantityFilled: 50_000_000,
          quoteAmount: 3_250_000,
          quoteAsset: 'USD/2',
          expiresAt: '2026-02-01T00:00:00Z',
          metadata: { desk: 'crypto' },
        },
      ],
    });
    const res = await v3.installConnector({
      connector: 'simulated',
      v3ConnectorConfig: { provider: 'Dummypay', name: `sdk-psu-${suffix()}`, directory, pollingPeriod: '1h' },
    });
    connectorID = res.v3InstallConnectorResponse!.data;
    // The install task fetches every kind once, orders last.
    await pollUntil(
      async () => ((await v3.listOrders({ query: { $match: { connectorID } } })).v3OrdersCursorResponse!.cursor.data.length ? true : undefined),
      isDefined,
      { timeoutMs: 30_000, what: 'orders fetched' },
    );
  });
  const encode = (reference: string) => Buffer.from(JSON.stringify({ ConnectorID: connectorID, Reference: reference })).toString('base64url');
  afterAll(async () => {
    await v3.uninstallConnector({ connectorID });
  });

  const newUser = async () =>
    (
      await v3.createPaymentServiceUser({
        name: `psu-${suffix()}`,
        contactDetails: { email: 'jane@example.com', phoneNumber: '+33 1 23 45 67 89' },
        address: { streetNumber: '1', streetName: 'Rue de Rivoli', city: 'Paris', postalCode: '75001', country: 'FR' },
        metadata: { tier: 'gold' },
      })
    ).v3CreatePaymentServiceUserResponse!.data;

  test('createPaymentServiceUser', async () => {
    const bankAccountID = await newBankAccount();
    const res = await v3.createPaymentServiceUser({ name: 'Jane', bankAccountIDs: [bankAccountID] });
    expect(res.statusCode).toBe(201);
    const user = (await v3.getPaymentServiceUser({ paymentServiceUserID: res.v3CreatePaymentServiceUserResponse!.data }))
      .v3GetPaymentServiceUserResponse!.data;
    expect(user.bankAccountIDs).toEqual([bankAccountID]);
  });

  test('listPaymentServiceUsers', async () => {
    const id = await newUser();
    const data = (await v3.listPaymentServiceUsers({ pageSize: 100 })).v3PaymentServiceUsersCursorResponse!.cursor.data;
    expect(data.find((u) => u.id === id)).toMatchObject({ metadata: { tier: 'gold' } });
  });

  test('getPaymentServiceUser', async () => {
    const id = await newUser();
    const user = (await v3.getPaymentServiceUser({ paymentServiceUserID: id })).v3GetPaymentServiceUserResponse!.data;
    expect(user).toMatchObject({ id, contactDetails: { email: 'jane@example.com' }, address: { city: 'Paris', country: 'FR' }, bankAccountIDs: [] });
    expect(user.createdAt).toBeInstanceOf(Date);
  });

  test('addBankAccountToPaymentServiceUser', async () => {
    const [id, bankAccountID] = await Promise.all([newUser(), newBankAccount()]);
    expect((await v3.addBankAccountToPaymentServiceUser({ paymentServiceUserID: id, bankAccountID })).statusCode).toBe(204);
    expect((await v3.getPaymentServiceUser({ paymentServiceUserID: id })).v3GetPaymentServiceUserResponse!.data.bankAccountIDs).toEqual([
      bankAccountID,
    ]);
  });

  test('forwardPaymentServiceUserBankAccount', async () => {
    const [id, bankAccountID] = await Promise.all([newUser(), newBankAccount()]);
    const forward = () =>
      v3.forwardPaymentServiceUserBankAccount({
        paymentServiceUserID: id,
        bankAccountID,
        v3ForwardPaymentServiceUserBankAccountRequest: { connectorID },
      });
    await expect(forward()).rejects.toMatchObject({ statusCode: 404 });
    await v3.addBankAccountToPaymentServiceUser({ paymentServiceUserID: id, bankAccountID });
    const res = await forward();
    expect(res.statusCode).toBe(202);
    const task = await settled(res.v3ForwardPaymentServiceUserBankAccountResponse!.data.taskID);
    expect(task).toMatchObject({ status: 'SUCCEEDED', createdObjectID: expect.any(String) });
    expect((await v3.getBankAccount({ bankAccountID })).v3GetBankAccountResponse!.data.relatedAccounts!.map((r) => r.accountID)).toEqual([
      task.createdObjectID,
    ]);
  });

  // The simulated connector (FETCH_CONVERSIONS, FETCH_ORDERS) fetches conversions.json and orders.json.
  test('listConversions', async () => {
    const cursor = (await v3.listConversions({ pageSize: 1, query: { $match: { connectorID } } })).v3ConversionsCursorResponse!.cursor;
    expect(cursor).toMatchObject({
      hasMore: true,
      pageSize: 1,
      data: [expect.objectContaining({ reference: 'conv-2', status: 'PENDING', sourceAmount: 500n, destinationAmount: null })],
    });
    const next = (await v3.listConversions({ cursor: cursor.next })).v3ConversionsCursorResponse!.cursor;
    expect(next.data.map((c) => c.reference)).toEqual(['conv-1']);
    const pending = (await v3.listConversions({ query: { $and: [{ $match: { connectorID } }, { $match: { status: 'COMPLETED' } }] } }))
      .v3ConversionsCursorResponse!.cursor;
    expect(pending.data.map((c) => c.reference)).toEqual(['conv-1']);
  });

  test('getConversion', async () => {
    const conversion = (await v3.getConversion({ conversionID: encode('conv-1') })).v3GetConversionResponse!.data;
    expect(conversion).toMatchObject({
      id: encode('conv-1'),
      connectorID,
      provider: 'SIMULATED',
      reference: 'conv-1',
      status: 'COMPLETED',
      sourceAsset: 'USD/2',
      destinationAsset: 'USDC/6',
      sourceAmount: 10_000n,
      destinationAmount: 99_990_000n,
      fee: 10n,
      feeAsset: 'USD/2',
      sourceAccountID: encode('wallet'),
    });
    expect(conversion.createdAt).toEqual(new Date('2026-01-01T00:00:00Z'));
    await expect(v3.getConversion({ conversionID: 'unknown' })).rejects.toMatchObject({ statusCode: 404, data$: { errorCode: 'NOT_FOUND' } });
  });

  test('listOrders', async () => {
    const cursor = (await v3.listOrders({ query: { $and: [{ $match: { connectorID } }, { $match: { direction: 'SELL' } }] } }))
      .v3OrdersCursorResponse!.cursor;
    expect(cursor).toMatchObject({ hasMore: false, pageSize: 15 });
    expect(cursor.data.map((o) => o.reference)).toEqual(['ord-1']);
    expect(
      (await v3.listOrders({ query: { $and: [{ $match: { connectorID } }, { $match: { direction: 'BUY' } }] } })).v3OrdersCursorResponse!.cursor.data,
    ).toEqual([]);
  });

  test('getOrder', async () => {
    const order = (await v3.getOrder({ orderID: encode('ord-1') })).v3GetOrderResponse!.data;
    expect(order).toMatchObject({
      id: encode('ord-1'),
      connectorID,
      provider: 'SIMULATED',
      direction: 'SELL',
      type: 'MARKET',
      status: 'FILLED',
      timeInForce: 'IMMEDIATE_OR_CANCEL',
      baseQuantityOrdered: 50_000_000n,
      baseQuantityFilled: 50_000_000n,
      quoteAmount: 3_250_000n,
      quoteAsset: 'USD/2',
      limitPrice: null,
      metadata: { desk: 'crypto' },
    });
    expect(order.expiresAt).toEqual(new Date('2026-02-01T00:00:00Z'));
    expect(order.adjustments).toEqual([expect.objectContaining({ reference: 'ord-1', status: 'FILLED', baseQuantityFilled: 50_000_000n })]);
    await expect(v3.getOrder({ orderID: 'unknown' })).rejects.toMatchObject({ statusCode: 404, data$: { errorCode: 'NOT_FOUND' } });
  });

  test('deletePaymentServiceUser', async () => {
    const id = await newUser();
    const res = await v3.deletePaymentServiceUser({ paymentServiceUserID: id });
    expect(res.statusCode).toBe(202);
    expect(await settled(res.v3PaymentServiceUserDeleteResponse!.data.taskID)).toMatchObject({ status: 'SUCCEEDED' });
    await expect(v3.getPaymentServiceUser({ paymentServiceUserID: id })).rejects.toMatchObject({ statusCode: 404 });
  });

  // Open banking on the simulated connector: its bank (psu-accounts.json) grants every consenting user two accounts.
  const link = { clientRedirectURL: 'https://app.example/return', applicationName: 'sdk' };
  const forwarded = async () => {
    const id = await newUser();
    await v3.forwardPaymentServiceUserToProvider({ paymentServiceUserID: id, connectorID });
    return id;
  };
  /** A user whose consent was approved in the end user's browser (the link opened over HTTP, redirect not followed). */
  const connected = async () => {
    const id = await forwarded();
    const created = (await v3.createLinkForPaymentServiceUser({ paymentServiceUserID: id, connectorID, v3PaymentServiceUserCreateLinkRequest: link }))
      .v3PaymentServiceUserCreateLinkResponse!;
    expect((await fetch(`${created.link}&decision=approve`, { redirect: 'manual' })).status).toBe(307);
    await pollUntil(async () => {
      const attempt = (
        await v3.getPaymentServiceUserLinkAttemptFromConnectorID({ paymentServiceUserID: id, connectorID, attemptID: created.attemptID })
      ).v3PaymentServiceUserLinkAttempt!;
      return attempt.status === 'completed' ? attempt : undefined;
    }, isDefined);
    return { id, connectionID: `conn-${created.attemptID}` };
  };

  test('forwardPaymentServiceUserToProvider', async () => {
    const id = await newUser();
    expect((await v3.forwardPaymentServiceUserToProvider({ paymentServiceUserID: id, connectorID })).statusCode).toBe(204);
    // Forwarded: a link can now be created.
    expect(
      (await v3.createLinkForPaymentServiceUser({ paymentServiceUserID: id, connectorID, v3PaymentServiceUserCreateLinkRequest: link })).statusCode,
    ).toBe(201);
    await expect(v3.forwardPaymentServiceUserToProvider({ paymentServiceUserID: id, connectorID: 'nope' })).rejects.toMatchObject({
      statusCode: 404,
    });
  });

  test('createLinkForPaymentServiceUser', async () => {
    const id = await forwarded();
    const res = await v3.createLinkForPaymentServiceUser({ paymentServiceUserID: id, connectorID, v3PaymentServiceUserCreateLinkRequest: link });
    expect(res.statusCode).toBe(201);
    const { attemptID, link: url } = res.v3PaymentServiceUserCreateLinkResponse!;
    expect(url).toContain(`/api/payments/v3/connectors/open-banking/${encodeURIComponent(connectorID)}/redirect?state=${attemptID}.`);
    const page = await fetch(url);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('sdk asks to read your accounts');
  });

  test('updateLinkForPaymentServiceUserOnConnector', async () => {
    const { id, connectionID } = await connected();
    const res = await v3.updateLinkForPaymentServiceUserOnConnector({
      paymentServiceUserID: id,
      connectorID,
      connectionID,
      v3PaymentServiceUserUpdateLinkRequest: link,
    });
    expect(res.statusCode).toBe(201);
    const { attemptID, link: url } = res.v3PaymentServiceUserUpdateLinkResponse!;
    expect((await fetch(`${url}&decision=approve`, { redirect: 'manual' })).headers.get('location')).toBe(link.clientRedirectURL);
    await pollUntil(
      async () =>
        (await v3.getPaymentServiceUserLinkAttemptFromConnectorID({ paymentServiceUserID: id, connectorID, attemptID }))
          .v3PaymentServiceUserLinkAttempt!.status === 'completed'
          ? true
          : undefined,
      isDefined,
    );
    await expect(
      v3.updateLinkForPaymentServiceUserOnConnector({
        paymentServiceUserID: id,
        connectorID,
        connectionID: 'c1',
        v3PaymentServiceUserUpdateLinkRequest: link,
      }),
    ).rejects.toMatchObject({ statusCode: 404, data$: { errorCode: 'NOT_FOUND', errorMessage: 'connection c1 not found' } });
  });

  test('deletePaymentServiceUserConnector', async () => {
    const { id } = await connected();
    const res = await v3.deletePaymentServiceUserConnector({ paymentServiceUserID: id, connectorID });
    expect(res.statusCode).toBe(202);
    expect(await settled(res.v3PaymentServiceUserDeleteConnectorResponse!.data.taskID)).toMatchObject({ status: 'SUCCEEDED', connectorID });
    await expect(v3.deletePaymentServiceUserConnector({ paymentServiceUserID: id, connectorID })).rejects.toMatchObject({ statusCode: 404 });
  });

  test('deletePaymentServiceUserConnectionFromConnectorID', async () => {
    const { id, connectionID } = await connected();
    const res = await v3.deletePaymentServiceUserConnectionFromConnectorID({ paymentServiceUserID: id, connectorID, connectionID });
    expect(res.statusCode).toBe(202);
    expect(await settled(res.v3PaymentServiceUserDeleteConnectionResponse!.data.taskID)).toMatchObject({ status: 'SUCCEEDED', connectorID });
    await expect(v3.deletePaymentServiceUserConnectionFromConnectorID({ paymentServiceUserID: id, connectorID, connectionID })).rejects.toMatchObject(
      { statusCode: 404, data$: { errorCode: 'NOT_FOUND' } },
    );
  });

  test('getPaymentServiceUserLinkAttemptFromConnectorID', async () => {
    const id = await forwarded();
    const { attemptID, link: url } = (
      await v3.createLinkForPaymentServiceUser({ paymentServiceUserID: id, connectorID, v3PaymentServiceUserCreateLinkRequest: link })
    ).v3PaymentServiceUserCreateLinkResponse!;
    const pending = (await v3.getPaymentServiceUserLinkAttemptFromConnectorID({ paymentServiceUserID: id, connectorID, attemptID }))
      .v3PaymentServiceUserLinkAttempt!;
    expect(pending).toEqual({
      id: attemptID,
      psuID: id,
      connectorID,
      status: 'pending',
      clientRedirectURL: link.clientRedirectURL,
      createdAt: expect.any(Date),
      error: null,
    });
    expect((await fetch(`${url}&decision=reject&noRedirect=true`)).status).toBe(204);
    const exited = await pollUntil(async () => {
      const attempt = (await v3.getPaymentServiceUserLinkAttemptFromConnectorID({ paymentServiceUserID: id, connectorID, attemptID }))
        .v3PaymentServiceUserLinkAttempt!;
      return attempt.status === 'exited' ? attempt : undefined;
    }, isDefined);
    expect(exited.error).toBe('the end user refused the consent');
    await expect(
      v3.getPaymentServiceUserLinkAttemptFromConnectorID({ paymentServiceUserID: id, connectorID, attemptID: 'a1' }),
    ).rejects.toMatchObject({ statusCode: 404, data$: { errorCode: 'NOT_FOUND', errorMessage: 'link attempt a1 not found' } });
  });
});

import { eventually, simulatedDirectory, suffix } from '../support/payments';
import { newBankAccount, settled, v3 } from './payments-v3-support';

/**
 * Payment service users of Formance's `payments.v3` through the official SDK, with their open-banking methods, and the
 * conversions and orders no connector fetches. One test per SDK method.
 */
const PSU_BANK = { 'psu-accounts.json': [{ reference: 'checking', type: 'INTERNAL', name: 'Checking', defaultAsset: 'EUR/2', createdAt: '2024-01-01T00:00:00Z' }] };

describe('contract: payments.v3 payment service users through the Formance SDK', () => {
  let connectorID: string;
  beforeAll(async () => {
    const res = await v3.installConnector({ connector: 'simulated', v3ConnectorConfig: { provider: 'Dummypay', name: `sdk-psu-${suffix()}`, directory: simulatedDirectory(PSU_BANK), pollingPeriod: '1h' } });
    connectorID = res.v3InstallConnectorResponse!.data;
  });
  afterAll(async () => {
    await v3.uninstallConnector({ connectorID });
  });

  const newUser = async () => (await v3.createPaymentServiceUser({
    name: `psu-${suffix()}`, contactDetails: { email: 'jane@example.com', phoneNumber: '+33 1 23 45 67 89' },
    address: { streetNumber: '1', streetName: 'Rue de Rivoli', city: 'Paris', postalCode: '75001', country: 'FR' }, metadata: { tier: 'gold' },
  })).v3CreatePaymentServiceUserResponse!.data;

  test('createPaymentServiceUser', async () => {
    const bankAccountID = await newBankAccount();
    const res = await v3.createPaymentServiceUser({ name: 'Jane', bankAccountIDs: [bankAccountID] });
    expect(res.statusCode).toBe(201);
    const user = (await v3.getPaymentServiceUser({ paymentServiceUserID: res.v3CreatePaymentServiceUserResponse!.data })).v3GetPaymentServiceUserResponse!.data;
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
    expect((await v3.getPaymentServiceUser({ paymentServiceUserID: id })).v3GetPaymentServiceUserResponse!.data.bankAccountIDs).toEqual([bankAccountID]);
  });

  test('forwardPaymentServiceUserBankAccount', async () => {
    const [id, bankAccountID] = await Promise.all([newUser(), newBankAccount()]);
    const forward = () => v3.forwardPaymentServiceUserBankAccount({ paymentServiceUserID: id, bankAccountID, v3ForwardPaymentServiceUserBankAccountRequest: { connectorID } });
    await expect(forward()).rejects.toMatchObject({ statusCode: 404 });
    await v3.addBankAccountToPaymentServiceUser({ paymentServiceUserID: id, bankAccountID });
    const res = await forward();
    expect(res.statusCode).toBe(202);
    const task = await settled(res.v3ForwardPaymentServiceUserBankAccountResponse!.data.taskID);
    expect(task).toMatchObject({ status: 'SUCCEEDED', createdObjectID: expect.any(String) });
    expect((await v3.getBankAccount({ bankAccountID })).v3GetBankAccountResponse!.data.relatedAccounts!.map((r) => r.accountID)).toEqual([task.createdObjectID]);
  });

  // Neither plugin fetches conversions or orders (no FETCH_CONVERSIONS / FETCH_ORDERS): empty lists, reads are 404.
  test('listConversions', async () => {
    const cursor = (await v3.listConversions({ pageSize: 10 })).v3ConversionsCursorResponse!.cursor;
    expect(cursor).toMatchObject({ data: [], hasMore: false, pageSize: 10 });
  });

  test('getConversion', async () => {
    await expect(v3.getConversion({ conversionID: 'any' })).rejects.toMatchObject({ statusCode: 404, data$: { errorCode: 'NOT_FOUND' } });
  });

  test('listOrders', async () => {
    const cursor = (await v3.listOrders({})).v3OrdersCursorResponse!.cursor;
    expect(cursor).toMatchObject({ data: [], hasMore: false, pageSize: 15 });
  });

  test('getOrder', async () => {
    await expect(v3.getOrder({ orderID: 'any' })).rejects.toMatchObject({ statusCode: 404, data$: { errorCode: 'NOT_FOUND' } });
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
    const created = (await v3.createLinkForPaymentServiceUser({ paymentServiceUserID: id, connectorID, v3PaymentServiceUserCreateLinkRequest: link })).v3PaymentServiceUserCreateLinkResponse!;
    expect((await fetch(`${created.link}&decision=approve`, { redirect: 'manual' })).status).toBe(307);
    await eventually(async () => {
      const attempt = (await v3.getPaymentServiceUserLinkAttemptFromConnectorID({ paymentServiceUserID: id, connectorID, attemptID: created.attemptID })).v3PaymentServiceUserLinkAttempt!;
      return attempt.status === 'completed' ? attempt : undefined;
    });
    return { id, connectionID: `conn-${created.attemptID}` };
  };

  test('forwardPaymentServiceUserToProvider', async () => {
    const id = await newUser();
    expect((await v3.forwardPaymentServiceUserToProvider({ paymentServiceUserID: id, connectorID })).statusCode).toBe(204);
    // Forwarded: a link can now be created.
    expect((await v3.createLinkForPaymentServiceUser({ paymentServiceUserID: id, connectorID, v3PaymentServiceUserCreateLinkRequest: link })).statusCode).toBe(201);
    await expect(v3.forwardPaymentServiceUserToProvider({ paymentServiceUserID: id, connectorID: 'nope' })).rejects.toMatchObject({ statusCode: 404 });
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
    const res = await v3.updateLinkForPaymentServiceUserOnConnector({ paymentServiceUserID: id, connectorID, connectionID, v3PaymentServiceUserUpdateLinkRequest: link });
    expect(res.statusCode).toBe(201);
    const { attemptID, link: url } = res.v3PaymentServiceUserUpdateLinkResponse!;
    expect((await fetch(`${url}&decision=approve`, { redirect: 'manual' })).headers.get('location')).toBe(link.clientRedirectURL);
    await eventually(async () => ((await v3.getPaymentServiceUserLinkAttemptFromConnectorID({ paymentServiceUserID: id, connectorID, attemptID }))
      .v3PaymentServiceUserLinkAttempt!.status === 'completed' ? true : undefined));
    await expect(v3.updateLinkForPaymentServiceUserOnConnector({ paymentServiceUserID: id, connectorID, connectionID: 'c1', v3PaymentServiceUserUpdateLinkRequest: link }))
      .rejects.toMatchObject({ statusCode: 404, data$: { errorCode: 'NOT_FOUND', errorMessage: 'connection c1 not found' } });
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
    await expect(v3.deletePaymentServiceUserConnectionFromConnectorID({ paymentServiceUserID: id, connectorID, connectionID }))
      .rejects.toMatchObject({ statusCode: 404, data$: { errorCode: 'NOT_FOUND' } });
  });

  test('getPaymentServiceUserLinkAttemptFromConnectorID', async () => {
    const id = await forwarded();
    const { attemptID, link: url } = (await v3.createLinkForPaymentServiceUser({ paymentServiceUserID: id, connectorID, v3PaymentServiceUserCreateLinkRequest: link }))
      .v3PaymentServiceUserCreateLinkResponse!;
    const pending = (await v3.getPaymentServiceUserLinkAttemptFromConnectorID({ paymentServiceUserID: id, connectorID, attemptID })).v3PaymentServiceUserLinkAttempt!;
    expect(pending).toEqual({ id: attemptID, psuID: id, connectorID, status: 'pending', clientRedirectURL: link.clientRedirectURL, createdAt: expect.any(Date), error: null });
    expect((await fetch(`${url}&decision=reject&noRedirect=true`)).status).toBe(204);
    const exited = await eventually(async () => {
      const attempt = (await v3.getPaymentServiceUserLinkAttemptFromConnectorID({ paymentServiceUserID: id, connectorID, attemptID })).v3PaymentServiceUserLinkAttempt!;
      return attempt.status === 'exited' ? attempt : undefined;
    });
    expect(exited.error).toBe('the end user refused the consent');
    await expect(v3.getPaymentServiceUserLinkAttemptFromConnectorID({ paymentServiceUserID: id, connectorID, attemptID: 'a1' }))
      .rejects.toMatchObject({ statusCode: 404, data$: { errorCode: 'NOT_FOUND', errorMessage: 'link attempt a1 not found' } });
  });
});

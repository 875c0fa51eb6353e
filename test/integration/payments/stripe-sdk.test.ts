import { HTTPClient, SDK } from '@formance/formance-sdk';
import { apiUrl } from '../../support/http';
import { suffix } from '../../support/payments';
import { isDefined, pollUntil } from '../../support/eventually';

/**
 * The Stripe connector through Formance's official SDK: install (a `Stripe` config), read its config, list, uninstall.
 * The SDK's Stripe config type has no `endpoint` (Formance's plugin always calls api.stripe.com), so a request hook of
 * the SDK's own HTTP client adds stripe-mock's URL to the install body, as the only departure from Formance's shape:
 * a test never reaches outside the machine.
 */
const mockUrl = process.env.TEST_STRIPE_MOCK_URL;

function sdkWithStripeEndpoint(endpoint: string): SDK {
  const httpClient = new HTTPClient();
  httpClient.addHook('beforeRequest', async (request) => {
    if (!new URL(request.url).pathname.endsWith('/connectors/install/stripe')) return request;
    const body = JSON.parse(await request.clone().text());
    return new Request(request.url, { method: request.method, headers: request.headers, body: JSON.stringify({ ...body, endpoint }) });
  });
  return new SDK({
    serverURL: apiUrl(),
    httpClient,
    security: { clientID: process.env.TEST_CLIENT_ID!, clientSecret: process.env.TEST_CLIENT_SECRET!, tokenURL: '/api/auth/oauth/token' },
  });
}

describe('Stripe connector through the Formance SDK (payments.v3)', () => {
  let v3: SDK['payments']['v3'];
  beforeAll(() => {
    if (!mockUrl) {
      throw new Error(
        'stripe-mock is not running (TEST_STRIPE_MOCK_URL unset): run `bash scripts/setup-stripe-mock.sh`, which builds .tools/bin/stripe-mock, then run the tests again',
      );
    }
    v3 = sdkWithStripeEndpoint(mockUrl).payments.v3;
  });

  it('installConnector, getConnectorConfig, listConnectors, getConnectorCapabilities, uninstallConnector', async () => {
    const name = `sdk-stripe-${suffix()}`;
    const installed = await v3.installConnector({
      connector: 'stripe',
      v3ConnectorConfig: { provider: 'Stripe', name, apiKey: 'sk_test_sdk', pollingPeriod: '1h' },
    });
    expect(installed.statusCode).toBe(202);
    const connectorID = installed.v3InstallConnectorResponse!.data;
    expect(Buffer.from(connectorID, 'base64url').toString()).toContain('"Provider":"stripe"');

    const config = (await v3.getConnectorConfig({ connectorID })).v3GetConnectorConfigResponse!.data;
    expect(config).toMatchObject({ provider: 'Stripe', name, apiKey: '********', pollingPeriod: '1h' });

    const listed = (await v3.listConnectors({ pageSize: 1000 })).v3ConnectorsCursorResponse!.cursor.data.find((c) => c.id === connectorID)!;
    expect(listed).toMatchObject({ id: connectorID, provider: 'STRIPE', scheduledForDeletion: false });
    expect(listed.capabilities).toEqual(
      expect.arrayContaining(['FETCH_PAYMENTS', 'CREATE_TRANSFER', 'CREATE_PAYOUT', 'CREATE_WEBHOOKS', 'TRANSLATE_WEBHOOKS']),
    );
    expect((await v3.getConnectorCapabilities({ connectorID })).v3ConnectorCapabilityResponse!.data).toContain('FETCH_BALANCES');

    // The install task ran against stripe-mock: the platform account is there.
    await pollUntil(
      async () => {
        const accounts = (await v3.listAccounts({ pageSize: 100, query: { $match: { connectorID } } })).v3AccountsCursorResponse!.cursor.data;
        return accounts.some((a) => a.reference === 'root') ? true : undefined;
      },
      isDefined,
      { timeoutMs: 30_000, what: 'the platform account' },
    );

    const uninstalled = await v3.uninstallConnector({ connectorID });
    expect(uninstalled.statusCode).toBe(202);
    const { taskID } = uninstalled.v3UninstallConnectorResponse!.data;
    const task = await pollUntil(
      async () => {
        const t = (await v3.getTask({ taskID })).v3GetTaskResponse!.data;
        return t.status !== 'PROCESSING' ? t : undefined;
      },
      isDefined,
      { timeoutMs: 30_000, what: 'the uninstall task' },
    );
    expect(task.status).toBe('SUCCEEDED');
    const after = (await v3.listConnectors({ pageSize: 1000 })).v3ConnectorsCursorResponse!.cursor.data.find((c) => c.id === connectorID)!;
    expect(after.scheduledForDeletion).toBe(true);
  });
});

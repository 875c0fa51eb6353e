import { HTTPClient, SDK } from '@formance/formance-sdk';
import { apiUrl, getToken } from '../support/http';

/**
 * Formance's official SDK pointed at the stack under test. Formance serves every service from one gateway under
 * `/api/<service>/...` and the SDK composes each operation's path onto `serverURL`, so our API's base URL is the whole
 * configuration. The SDK fetches its own tokens (client_credentials against `tokenURL`, relative to `serverURL`),
 * asking for each operation's Formance scopes, which are ours.
 */
export const sdkClient = (): SDK =>
  new SDK({
    serverURL: apiUrl(),
    security: { clientID: process.env.TEST_CLIENT_ID!, clientSecret: process.env.TEST_CLIENT_SECRET!, tokenURL: '/api/auth/oauth/token' },
  });

/**
 * The same SDK, adding the test client's token to the operations on which the SDK sends none (their OpenAPI entries
 * list no scopes, e.g. payments.v3 getBankAccount, updateBankAccountMetadata, forwardBankAccount), while every route of
 * this API requires one: a request hook of the SDK's own HTTP client, as a Formance client behind a gateway would add
 * it. The SDK's token requests and the tokens it sets itself are left alone.
 */
export const sdkClientWithToken = (): SDK => {
  const httpClient = new HTTPClient();
  httpClient.addHook('beforeRequest', async (request) => {
    const isTokenRequest = new URL(request.url).pathname.endsWith('/oauth/token');
    if (!isTokenRequest && !request.headers.has('authorization')) request.headers.set('authorization', `Bearer ${await getToken()}`);
    return request;
  });
  return new SDK({
    serverURL: apiUrl(),
    httpClient,
    security: { clientID: process.env.TEST_CLIENT_ID!, clientSecret: process.env.TEST_CLIENT_SECRET!, tokenURL: '/api/auth/oauth/token' },
  });
};

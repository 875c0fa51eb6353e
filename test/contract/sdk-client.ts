import { SDK } from '@formance/formance-sdk';
import { apiUrl } from '../support/http';

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


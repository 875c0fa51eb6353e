import { getLinkAttempt, refuseOpenBanking } from '../../../areas/payments';
import { authenticate } from '../../middleware/authenticate';
import { validate } from '../../middleware/validate';
import { defineRoute } from '../../routing';
import { anyObjectSchema, dataOf, member, objectSchema, stringSchema } from '../../schemas/common';
import { tags } from './common';

/** Formance's open-banking operations on payment service users; neither plugin supports them (see areas/payments/psu-open-banking.ts). */
const base = '/api/payments/v3/payment-service-users/{paymentServiceUserID}/connectors/{connectorID}';
const id = stringSchema({ minLength: 1, maxLength: 2000 });
const psuConnector = objectSchema({ ...member('paymentServiceUserID', id), ...member('connectorID', id) }, ['paymentServiceUserID', 'connectorID']);
const withConnection = objectSchema({ ...member('paymentServiceUserID', id), ...member('connectorID', id), ...member('connectionID', id) }, ['paymentServiceUserID', 'connectorID', 'connectionID']);
const withAttempt = objectSchema({ ...member('paymentServiceUserID', id), ...member('connectorID', id), ...member('attemptID', id) }, ['paymentServiceUserID', 'connectorID', 'attemptID']);
const linkBody = objectSchema({ applicationName: stringSchema({ maxLength: 200 }), clientRedirectURL: stringSchema({ format: 'uri', maxLength: 2048 }) }, ['clientRedirectURL']);
const refused = { 400: { description: 'Always: no plugin supports open banking' } };
const never = anyObjectSchema({ description: 'Never answered' });

const refusal = (method: 'post' | 'delete', path: string, operationId: string, summary: string, params: typeof psuConnector | typeof withConnection, body?: typeof linkBody) => defineRoute(
  { method, path, operationId, summary: `${summary} (open banking: always 400)`, tags, responses: refused },
  authenticate('payments:write'),
  validate(body ? { params, body } : { params }),
  async function openBankingHandler(ctx) {
    const { paymentServiceUserID, connectorID } = ctx.state.input.params as { paymentServiceUserID: string; connectorID: string };
    await refuseOpenBanking(ctx.deps.db, paymentServiceUserID, connectorID);
  },
);

export const openBankingRoutes = [
  refusal('post', `${base}/forward`, 'forwardPaymentServiceUserToProvider', 'Create the user at the connector\'s provider', psuConnector),
  refusal('post', `${base}/create-link`, 'createLinkForPaymentServiceUser', 'Start a bank connection link for the user', psuConnector, linkBody),
  refusal('post', `${base}/connections/{connectionID}/update-link`, 'updateLinkForPaymentServiceUserOnConnector', 'Renew a bank connection link', withConnection, linkBody),
  refusal('delete', base, 'deletePaymentServiceUserConnector', 'Delete the user at the connector\'s provider', psuConnector),
  refusal('delete', `${base}/connections/{connectionID}`, 'deletePaymentServiceUserConnection', 'Delete one of the user\'s bank connections', withConnection),
  defineRoute(
    { method: 'get', path: `${base}/link-attempts/{attemptID}`, operationId: 'readPaymentServiceUserLinkAttempt', summary: 'Read a link attempt (none can exist: always 404)', tags,
      responses: { 200: { description: 'Never answered', schema: dataOf(never) } } },
    authenticate('payments:read'),
    validate({ params: withAttempt }),
    async function readLinkAttemptHandler(ctx) {
      const { paymentServiceUserID, connectorID, attemptID } = ctx.state.input.params;
      await getLinkAttempt(ctx.deps.db, paymentServiceUserID, connectorID, attemptID);
    },
  ),
];

import {
  connectionKey,
  consentPath,
  createPsuLink,
  checkConsentState,
  decideConsent,
  deletePaymentServiceUserConnection,
  deletePaymentServiceUserConnector,
  forwardPaymentServiceUserToProvider,
  getLinkAttempt,
  linkAttemptKey,
  listConnections,
  listLinkAttempts,
  updatePsuLink,
} from '../../../areas/payments';
import { escapeHtml } from '../../html';
import { authenticate, openRoute } from '../../middleware/authenticate';
import { validate } from '../../middleware/validate';
import { cursorEnvelope } from '../../pagination';
import { defineRoute } from '../../routing';
import { cursorOf, dataOf, dateTimeSchema, member, metadataSchema, objectSchema, stringSchema } from '../../schemas/common';
import { taskSchema } from '../../schemas/payments';
import { v3PlainListQuery } from '../../schemas/payments-v3';
import { noContent, tags, temporalOf } from './common';

/** Formance's open-banking operations on payment service users (areas/payments/open-banking/psu-open-banking.ts, psu-links.ts). */
const users = '/api/payments/v3/payment-service-users/{paymentServiceUserID}';
const base = `${users}/connectors/{connectorID}`;
const id = stringSchema({ minLength: 1, maxLength: 2000 });
const psuOnly = objectSchema({ ...member('paymentServiceUserID', id) }, ['paymentServiceUserID']);
const psuConnector = objectSchema({ ...member('paymentServiceUserID', id), ...member('connectorID', id) }, ['paymentServiceUserID', 'connectorID']);
const withConnection = objectSchema({ ...member('paymentServiceUserID', id), ...member('connectorID', id), ...member('connectionID', id) }, [
  'paymentServiceUserID',
  'connectorID',
  'connectionID',
]);
const withAttempt = objectSchema({ ...member('paymentServiceUserID', id), ...member('connectorID', id), ...member('attemptID', id) }, [
  'paymentServiceUserID',
  'connectorID',
  'attemptID',
]);
const linkBody = objectSchema(
  {
    applicationName: stringSchema({ maxLength: 200, description: 'Shown to the end user on the consent page.' }),
    clientRedirectURL: stringSchema({
      format: 'uri',
      pattern: '^https?://',
      maxLength: 2048,
      description: "Where the end user's browser goes once the consent is decided.",
    }),
  },
  ['clientRedirectURL'],
);
const linkSchema = objectSchema(
  { attemptID: stringSchema({ format: 'uuid' }), link: stringSchema({ description: 'The consent page the end user opens.' }) },
  ['attemptID', 'link'],
);
const attemptSchema = objectSchema(
  {
    id: stringSchema({ format: 'uuid' }),
    psuID: stringSchema({ format: 'uuid' }),
    connectorID: stringSchema(),
    createdAt: dateTimeSchema,
    status: stringSchema({ enum: ['pending', 'completed', 'exited'] }),
    clientRedirectURL: stringSchema(),
    error: { type: ['string', 'null'] },
  },
  ['id', 'psuID', 'connectorID', 'createdAt', 'status', 'clientRedirectURL'],
);
const connectionSchema = objectSchema(
  {
    connectionID: stringSchema(),
    connectorID: stringSchema(),
    createdAt: dateTimeSchema,
    dataUpdatedAt: dateTimeSchema,
    updatedAt: dateTimeSchema,
    status: stringSchema({ enum: ['ACTIVE', 'ERROR'] }),
    error: { type: ['string', 'null'] },
    metadata: metadataSchema,
  },
  ['connectionID', 'connectorID', 'createdAt', 'dataUpdatedAt', 'updatedAt', 'status', 'metadata'],
);
const taskResponse = { 202: { description: "The deletion's task (read it with getTask)", schema: dataOf(taskSchema) } };
const deps = (ctx: Parameters<typeof temporalOf>[0]) => ({ db: ctx.deps.db, temporal: temporalOf(ctx) });

const forwardRoute = defineRoute(
  {
    method: 'post',
    path: `${base}/forward`,
    operationId: 'forwardPaymentServiceUserToProvider',
    summary: "Register the user at the connector's provider (waits for it; runs on Temporal)",
    tags,
    responses: noContent,
  },
  authenticate('payments:write'),
  validate({ params: psuConnector }),
  async function forwardPsuToProviderHandler(ctx) {
    const { paymentServiceUserID, connectorID } = ctx.state.input.params;
    await forwardPaymentServiceUserToProvider(deps(ctx), paymentServiceUserID, connectorID);
    ctx.status = 204;
  },
);

const createLinkRoute = defineRoute(
  {
    method: 'post',
    path: `${base}/create-link`,
    operationId: 'createLinkForPaymentServiceUser',
    summary: 'Start a bank connection consent for the user',
    tags,
    responses: { 201: { description: 'The link attempt and the consent page to open', schema: linkSchema } },
  },
  authenticate('payments:write'),
  validate({ params: psuConnector, body: linkBody }),
  async function createLinkHandler(ctx) {
    const { params, body } = ctx.state.input;
    ctx.status = 201;
    ctx.body = await createPsuLink({ db: ctx.deps.db, publicUrl: ctx.deps.config.publicUrl }, params.paymentServiceUserID, params.connectorID, body);
  },
);

const updateLinkRoute = defineRoute(
  {
    method: 'post',
    path: `${base}/connections/{connectionID}/update-link`,
    operationId: 'updateLinkForPaymentServiceUserOnConnector',
    summary: 'Renew the consent of a bank connection',
    tags,
    responses: { 201: { description: 'The link attempt and the consent page to open', schema: linkSchema } },
  },
  authenticate('payments:write'),
  validate({ params: withConnection, body: linkBody }),
  async function updateLinkHandler(ctx) {
    const { params, body } = ctx.state.input;
    ctx.status = 201;
    ctx.body = await updatePsuLink(
      { db: ctx.deps.db, publicUrl: ctx.deps.config.publicUrl },
      params.paymentServiceUserID,
      params.connectorID,
      params.connectionID,
      body,
    );
  },
);

const readAttemptRoute = defineRoute(
  {
    method: 'get',
    path: `${base}/link-attempts/{attemptID}`,
    operationId: 'readPaymentServiceUserLinkAttempt',
    summary: 'Read a link attempt',
    tags,
    responses: { 200: { description: "The attempt (not wrapped in `data`, as Formance's SDK reads it)", schema: attemptSchema } },
  },
  authenticate('payments:read'),
  validate({ params: withAttempt }),
  async function readLinkAttemptHandler(ctx) {
    const { paymentServiceUserID, connectorID, attemptID } = ctx.state.input.params;
    ctx.body = await getLinkAttempt(ctx.deps.db, paymentServiceUserID, connectorID, attemptID);
  },
);

const listAttemptsRoute = defineRoute(
  {
    method: 'get',
    path: `${base}/link-attempts`,
    operationId: 'listPaymentServiceUserLinkAttempts',
    summary: "List the user's link attempts at a connector, newest first",
    tags,
    responses: { 200: { description: 'Cursor', schema: cursorOf(attemptSchema) } },
  },
  authenticate('payments:read'),
  validate({ params: psuConnector, query: v3PlainListQuery }),
  async function listLinkAttemptsHandler(ctx) {
    const { paymentServiceUserID, connectorID } = ctx.state.input.params;
    const list = ctx.state.input.list;
    ctx.body = cursorEnvelope(list, await listLinkAttempts(ctx.deps.db, paymentServiceUserID, connectorID, list), linkAttemptKey);
  },
);

const listAllConnectionsRoute = defineRoute(
  {
    method: 'get',
    path: `${users}/connections`,
    operationId: 'listPaymentServiceUserConnections',
    summary: "List the user's bank connections, newest first",
    tags,
    responses: { 200: { description: 'Cursor', schema: cursorOf(connectionSchema) } },
  },
  authenticate('payments:read'),
  validate({ params: psuOnly, query: v3PlainListQuery }),
  async function listAllConnectionsHandler(ctx) {
    const list = ctx.state.input.list;
    ctx.body = cursorEnvelope(list, await listConnections(ctx.deps.db, ctx.state.input.params.paymentServiceUserID, undefined, list), connectionKey);
  },
);

const listConnectionsRoute = defineRoute(
  {
    method: 'get',
    path: `${base}/connections`,
    operationId: 'listPaymentServiceUserConnectionsFromConnectorID',
    summary: "List the user's bank connections at a connector, newest first",
    tags,
    responses: { 200: { description: 'Cursor', schema: cursorOf(connectionSchema) } },
  },
  authenticate('payments:read'),
  validate({ params: psuConnector, query: v3PlainListQuery }),
  async function listConnectionsHandler(ctx) {
    const { paymentServiceUserID, connectorID } = ctx.state.input.params;
    const list = ctx.state.input.list;
    ctx.body = cursorEnvelope(list, await listConnections(ctx.deps.db, paymentServiceUserID, connectorID, list), connectionKey);
  },
);

const deleteConnectionRoute = defineRoute(
  {
    method: 'delete',
    path: `${base}/connections/{connectionID}`,
    operationId: 'deletePaymentServiceUserConnection',
    summary: "Delete one of the user's bank connections and its accounts (runs on Temporal)",
    tags,
    responses: taskResponse,
  },
  authenticate('payments:write'),
  validate({ params: withConnection }),
  async function deleteConnectionHandler(ctx) {
    const { paymentServiceUserID, connectorID, connectionID } = ctx.state.input.params;
    ctx.status = 202;
    ctx.body = { data: await deletePaymentServiceUserConnection(deps(ctx), paymentServiceUserID, connectorID, connectionID) };
  },
);

const deleteConnectorRoute = defineRoute(
  {
    method: 'delete',
    path: base,
    operationId: 'deletePaymentServiceUserConnector',
    summary: "Remove the user from the connector's provider, with its connections (runs on Temporal)",
    tags,
    responses: taskResponse,
  },
  authenticate('payments:write'),
  validate({ params: psuConnector }),
  async function deletePsuConnectorHandler(ctx) {
    const { paymentServiceUserID, connectorID } = ctx.state.input.params;
    ctx.status = 202;
    ctx.body = { data: await deletePaymentServiceUserConnector(deps(ctx), paymentServiceUserID, connectorID) };
  },
);

/**
 * The simulated bank's consent page, on Formance's public open-banking callback path: the end user's browser opens the
 * link without a token of ours, so the link's single-use `state` is the guard. Without `decision` it shows the choice;
 * with one it completes the attempt and redirects (307) to the client's URL, or answers 204 with `noRedirect=true`.
 */
const consentRoute = defineRoute(
  {
    method: 'get',
    path: '/api/payments/v3/connectors/open-banking/{connectorID}/redirect',
    operationId: 'openBankingSimulatedConsent',
    summary: "The simulated connector's consent page (public; guarded by the link's state)",
    tags,
    responses: {
      200: { description: 'The consent page (HTML)' },
      204: { description: 'Decided (noRedirect=true)' },
      307: { description: "Decided: back to the client's URL" },
    },
  },
  openRoute(),
  validate({
    params: objectSchema({ ...member('connectorID', id) }, ['connectorID']),
    query: objectSchema(
      {
        state: stringSchema({ minLength: 1, maxLength: 200, description: '`<attemptID>.<token>`, from the link' }),
        decision: stringSchema({ enum: ['approve', 'reject'] }),
        noRedirect: stringSchema({ enum: ['true', 'false'], description: 'true: answer 204 instead of redirecting' }),
      },
      ['state'],
    ),
  }),
  async function consentHandler(ctx) {
    const { connectorID } = ctx.state.input.params;
    const { state, decision, noRedirect } = ctx.state.input.query;
    // The state carries the link's token: it must not leak to the client's site through a Referer (the redirect's
    // answer is not HTML unless the browser asks for it, so the page headers of request-context.ts may not apply).
    ctx.set('Referrer-Policy', 'no-referrer');
    if (!decision) {
      const attempt = await checkConsentState(ctx.deps.db, connectorID, state);
      const choice = (d: string) => `${consentPath(connectorID)}?state=${encodeURIComponent(state)}&decision=${d}`;
      ctx.type = 'text/html';
      ctx.set('Cache-Control', 'no-store');
      ctx.body = `<!doctype html><html><head><meta charset="utf-8"><title>Simulated bank consent</title></head><body>
<h1>Simulated bank</h1><p>${escapeHtml(attempt.applicationName ?? 'An application')} asks to read your accounts.</p>
<p><a href="${escapeHtml(choice('approve'))}">Approve</a> <a href="${escapeHtml(choice('reject'))}">Reject</a></p></body></html>`;
      return;
    }
    const redirectTo = await decideConsent(deps(ctx), connectorID, state, decision);
    if (noRedirect === 'true') {
      ctx.status = 204;
      return;
    }
    ctx.status = 307;
    ctx.redirect(redirectTo);
  },
);

export const openBankingRoutes = [
  forwardRoute,
  createLinkRoute,
  updateLinkRoute,
  deleteConnectorRoute,
  deleteConnectionRoute,
  readAttemptRoute,
  listAttemptsRoute,
  listAllConnectionsRoute,
  listConnectionsRoute,
  consentRoute,
];

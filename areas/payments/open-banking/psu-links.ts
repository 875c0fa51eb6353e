import { createHash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { ApiError, conflict, notFound, validationError } from '../../../lib/errors';
import type { TemporalDeps } from '../../../lib/temporal';
import { inTransaction } from '../../../db/errors';
import type { Db, Executor } from '../../../db/knex';
import { keysetPage, type Page, type PageRequest } from '../../../db/pagination';
import { getConnectorRow } from '../connectors/connectors';
import { awaitLinkCompletion, startLinkCompletion } from '../engine';
import { isUuid } from '../ids';
import { getPaymentServiceUser } from './payment-service-users';
import { getConnection, isForwarded, openBankingTarget } from './psu-open-banking';

/**
 * Formance's link flow: a link attempt gives the end user a URL to consent at the provider; the provider then sends
 * the user's browser back to the platform, which completes the attempt and redirects to the client's URL. For the
 * simulated connector the consent page is the platform's own (`consentPath`), guarded by a single-use token that only
 * the link carries (its SHA-256 is stored).
 */
export interface LinkAttempt {
  id: string;
  psuID: string;
  connectorID: string;
  status: 'pending' | 'completed' | 'exited';
  clientRedirectURL: string;
  createdAt: Date;
  error: string | null;
}
export interface LinkInput {
  clientRedirectURL: string;
  applicationName?: string;
}

const presentAttempt = (r: any): LinkAttempt => ({
  id: r.id,
  psuID: r.psu_id,
  connectorID: r.connector_id,
  status: r.status,
  clientRedirectURL: r.client_redirect_url,
  createdAt: r.created_at,
  error: r.error ?? null,
});
const hashToken = (token: string): string => createHash('sha256').update(token, 'utf8').digest('hex');

/** The public page the end user's browser opens (Formance's unauthenticated open-banking callback route). */
export const consentPath = (connectorID: string): string => `/api/payments/v3/connectors/open-banking/${encodeURIComponent(connectorID)}/redirect`;

async function newAttempt(
  db: Db,
  publicUrl: string,
  target: { psuID: string; connectorID: string; connectionID?: string },
  input: LinkInput,
): Promise<{ attemptID: string; link: string }> {
  const attemptID = randomUUID();
  const token = randomBytes(32).toString('base64url');
  await db('payments_psu_link_attempts').insert({
    id: attemptID,
    psu_id: target.psuID,
    connector_id: target.connectorID,
    connection_id: target.connectionID ?? null,
    status: 'pending',
    client_redirect_url: input.clientRedirectURL,
    application_name: input.applicationName ?? null,
    token_hash: hashToken(token),
  });
  return { attemptID, link: `${publicUrl}${consentPath(target.connectorID)}?state=${attemptID}.${token}` };
}

async function requireForwarded(db: Executor, psuID: string, connectorID: string): Promise<void> {
  if (!(await isForwarded(db, psuID, connectorID))) {
    throw validationError(
      `payment service user ${psuID} is not registered at connector ${connectorID}: forward it first (forwardPaymentServiceUserToProvider)`,
    );
  }
}

/** Starts a consent flow for a new bank connection. Throws NOT_FOUND, VALIDATION (capability, user not forwarded). */
export async function createPsuLink(
  deps: { db: Db; publicUrl: string },
  psuID: string,
  connectorID: string,
  input: LinkInput,
): Promise<{ attemptID: string; link: string }> {
  await openBankingTarget(deps.db, psuID, connectorID, 'CREATE_USER_LINK');
  await requireForwarded(deps.db, psuID, connectorID);
  return newAttempt(deps.db, deps.publicUrl, { psuID, connectorID }, input);
}

/** Starts a consent flow that renews an existing connection (re-consent). Throws NOT_FOUND, VALIDATION. */
export async function updatePsuLink(
  deps: { db: Db; publicUrl: string },
  psuID: string,
  connectorID: string,
  connectionID: string,
  input: LinkInput,
): Promise<{ attemptID: string; link: string }> {
  await openBankingTarget(deps.db, psuID, connectorID, 'UPDATE_USER_LINK');
  await getConnection(deps.db, psuID, connectorID, connectionID);
  return newAttempt(deps.db, deps.publicUrl, { psuID, connectorID, connectionID }, input);
}

/** Throws NOT_FOUND. */
export async function getLinkAttempt(db: Executor, psuID: string, connectorID: string, attemptID: string): Promise<LinkAttempt> {
  await getPaymentServiceUser(db, psuID);
  await getConnectorRow(db, connectorID);
  const row = isUuid(attemptID)
    ? await db('payments_psu_link_attempts').where({ id: attemptID, psu_id: psuID, connector_id: connectorID }).first()
    : undefined;
  if (!row) throw notFound(`link attempt ${attemptID} not found`);
  return presentAttempt(row);
}

/** Newest first. Throws NOT_FOUND. */
export async function listLinkAttempts(db: Executor, psuID: string, connectorID: string, page: PageRequest): Promise<Page<LinkAttempt>> {
  await getPaymentServiceUser(db, psuID);
  await getConnectorRow(db, connectorID);
  const rows = await keysetPage<any>(
    db('payments_psu_link_attempts').where({ psu_id: psuID, connector_id: connectorID }).select('*'),
    ['created_at', 'id'],
    'desc',
    page,
  );
  return { ...rows, items: rows.items.map(presentAttempt) };
}

export const linkAttemptKey = (a: LinkAttempt): unknown[] => [a.createdAt.toISOString(), a.id];

/** A consent state's parts, `<attemptID>.<token>`. Throws VALIDATION. */
function parseState(state: string): { attemptID: string; token: string } {
  const [attemptID, token, ...rest] = state.split('.');
  if (rest.length || !token || !isUuid(attemptID)) throw validationError('query.state: not a consent state');
  return { attemptID, token };
}

/**
 * The attempt's row, checked against the link: NOT_FOUND (no such attempt at this connector), FORBIDDEN (wrong token),
 * CONFLICT (already decided: a link works once, also while the completion of the first decision still runs).
 */
function undecidedAttempt(row: any, attemptID: string, token: string): any {
  if (!row) throw notFound(`link attempt ${attemptID} not found`);
  const expected = Buffer.from(row.token_hash, 'hex');
  if (!timingSafeEqual(expected, Buffer.from(hashToken(token), 'hex'))) throw new ApiError('FORBIDDEN', 'this consent link is not valid');
  if (row.status !== 'pending' || row.decision) {
    throw conflict(`link attempt ${attemptID} was already decided (${row.decision ?? row.status}): a consent link works once`);
  }
  return row;
}

/**
 * The attempt a consent link's `state` (`<attemptID>.<token>`) stands for, still undecided. Throws VALIDATION (malformed
 * state), NOT_FOUND, FORBIDDEN, CONFLICT (see undecidedAttempt).
 */
export async function checkConsentState(
  db: Executor,
  connectorID: string,
  state: string,
): Promise<{ attemptID: string; clientRedirectURL: string; applicationName?: string }> {
  const { attemptID, token } = parseState(state);
  const row = undecidedAttempt(await db('payments_psu_link_attempts').where({ id: attemptID, connector_id: connectorID }).first(), attemptID, token);
  return { attemptID, clientRedirectURL: row.client_redirect_url, ...(row.application_name ? { applicationName: row.application_name } : {}) };
}

/**
 * Records the end user's decision, exactly once per link, and answers the client's URL to send the browser back to.
 * The attempt's row is locked, so concurrent decisions queue; the first records its decision and starts the completion
 * (the connection and its accounts on approval, an exited attempt on refusal) before it commits, and every later one
 * finds the decision recorded: 409, whichever way it decided. Starting inside the transaction means a start that fails
 * rolls the decision back (503, the link still works) and a commit that fails after the start leaves a run that
 * Temporal refuses to start twice (startLinkCompletion), so no second decision can slip in either way. Then it waits a
 * little for the completion, outside the transaction, so the client usually finds the attempt done when the browser
 * reaches it; the completion goes on in any case.
 */
export async function decideConsent(
  deps: { db: Db; temporal: TemporalDeps },
  connectorID: string,
  state: string,
  decision: 'approve' | 'reject',
): Promise<string> {
  const { attemptID, token } = parseState(state);
  const clientRedirectURL = await inTransaction(deps.db, async (trx) => {
    const row = undecidedAttempt(
      await trx('payments_psu_link_attempts').where({ id: attemptID, connector_id: connectorID }).forUpdate().first(),
      attemptID,
      token,
    );
    await trx('payments_psu_link_attempts').where({ id: attemptID }).update({ decision, decided_at: trx.fn.now(), updated_at: trx.fn.now() });
    let started: boolean;
    try {
      started = await startLinkCompletion(deps.temporal, { attemptID, connectorID, decision });
    } catch (error) {
      throw new ApiError('SERVICE_UNAVAILABLE', 'could not start the link completion on Temporal', { cause: error });
    }
    if (!started) throw conflict(`link attempt ${attemptID} was already decided: a consent link works once`);
    return row.client_redirect_url as string;
  });
  await awaitLinkCompletion(deps.temporal, attemptID, 15_000);
  return clientRedirectURL;
}

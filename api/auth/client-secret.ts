import { createHmac, randomBytes } from 'node:crypto';
import type Koa from 'koa';
import type { Db } from '../../db/knex';
import { matchClientSecret } from '../../areas/auth';

/**
 * The `client_secret` oidc-provider is given for a client (the adapter's Client `find`), and what a request carries to
 * it in place of a secret that matched one of the client's stored hashes. Stored secrets are hashes, and the provider
 * compares the presented secret with the `client_secret` it read, in clear; so the secret is checked here, before the
 * provider, and the provider's own (constant-time) comparison only ever sees this value or NO_MATCH.
 * An HMAC of the client id under a key drawn at process start and kept nowhere else: the value is produced and checked
 * within one request in one process, so no replica or restart needs it, and it never leaves the process (request
 * headers and bodies are not logged). Per client, so it could not stand in for another client's secret.
 */
export type SecretStandIn = (clientId: string) => string;

export function createSecretStandIn(): SecretStandIn {
  const key = randomBytes(32);
  return (clientId) => createHmac('sha256', key).update(clientId, 'utf8').digest('base64url');
}

/**
 * Given to the provider in place of a secret that matched none of the client's: it is never a stand-in (those are 43
 * characters), so the provider refuses the client with its own invalid_client answer, WWW-Authenticate included.
 */
const NO_MATCH = 'no-match';

const VISIBLE_ASCII = /^[\x20-\x7E]*$/;

/** oidc-provider's reading of one half of a Basic header (RFC 6749 §2.3.1: form-encoded), or undefined where it refuses it. */
function decodeBasicPart(part: string): string | undefined {
  try {
    const decoded = decodeURIComponent(part.replace(/\+/g, '%20'));
    return VISIBLE_ASCII.test(decoded) ? decoded : undefined;
  } catch {
    return undefined;
  }
}

interface BasicCredentials {
  scheme: string;
  /** The client id as sent (still form-encoded), so the provider decodes the same id from the rewritten header. */
  encodedId: string;
  clientId: string;
  secret: string;
}

/**
 * The credentials of an Authorization header, read exactly as oidc-provider reads them (shared/token_auth.js), so the
 * secret checked here is the one it would compare. Undefined for a header it refuses (malformed, badly encoded): that
 * header is left as sent and the provider answers its own invalid_request.
 */
export function readBasicCredentials(header: string | undefined): BasicCredentials | undefined {
  if (header === undefined) return undefined;
  const parts = header.split(' ');
  if (parts.length !== 2 || parts[0].toLowerCase() !== 'basic') return undefined;
  const decoded = Buffer.from(parts[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon === -1) return undefined;
  const encodedId = decoded.slice(0, colon);
  const clientId = decodeBasicPart(encodedId);
  const secret = decodeBasicPart(decoded.slice(colon + 1));
  if (clientId === undefined || secret === undefined) return undefined;
  return { scheme: parts[0], encodedId, clientId, secret };
}

/**
 * Checks the client secret a token or revocation request presents (client_secret_basic or client_secret_post) against
 * the client's stored hashes, in constant time, and hands the provider the client's stand-in in its place when it
 * matched, NO_MATCH otherwise. Returns the id of the matching secret (the token's `client_secret_id`).
 * Only what the provider would compare is replaced: an empty secret, a duplicated parameter or two mechanisms at once
 * are left for the provider to refuse with its own answer. A secret in the form beside an Authorization header can
 * never authenticate (the provider refuses two mechanisms), so it becomes NO_MATCH.
 */
export async function checkPresentedSecret(
  db: Db,
  standIn: SecretStandIn,
  ctx: Koa.Context,
  form: URLSearchParams | undefined,
): Promise<string | undefined> {
  const header = ctx.request.headers.authorization;
  const basic = readBasicCredentials(header);
  let secretId: string | undefined;
  if (basic && basic.secret) {
    secretId = await matchClientSecret(db, basic.clientId, basic.secret);
    const replacement = secretId ? standIn(basic.clientId) : NO_MATCH;
    const authorization = `${basic.scheme} ${Buffer.from(`${basic.encodedId}:${replacement}`, 'utf8').toString('base64')}`;
    ctx.request.headers = { ...ctx.request.headers, authorization };
  }
  const posted = form?.getAll('client_secret') ?? [];
  if (form && posted.length === 1 && posted[0]) {
    const clientIds = form.getAll('client_id');
    if (header === undefined && clientIds.length === 1) {
      secretId = await matchClientSecret(db, clientIds[0], posted[0]);
      form.set('client_secret', secretId ? standIn(clientIds[0]) : NO_MATCH);
    } else form.set('client_secret', NO_MATCH);
  }
  return secretId;
}

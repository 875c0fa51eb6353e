import type { Knex } from 'knex';
import { getConfig } from '../../lib/config';

/** NOTIFYed when revocations commit; every API process LISTENs (api/auth/revocation-list.ts). */
export const REVOCATIONS_CHANNEL = 'auth_token_revocations';

/**
 * What a revocation names: a deleted client, a deleted client secret, one token (its `jti`, RFC 7009), or the tokens a
 * client was issued under a scopes version that a narrowing of its scopes ended (subject scopesSubject()).
 */
export type RevocationKind = 'client' | 'secret' | 'token' | 'scopes';

export interface Revocation {
  kind: RevocationKind;
  /** The client id, the secret id, the token id or scopesSubject(). */
  subject: string;
  clientId: string;
  /** When every token this revocation refuses has expired anyway; the row is pruned after that. */
  expiresAt: Date;
}

export interface RevocationRow {
  seq: number;
  kind: RevocationKind;
  subject: string;
  expiresAtMs: number;
}

/**
 * How long the revocation of a client or secret is kept. Its tokens were all issued before it, so they are expired one
 * token lifetime later; a day covers the default hour with room for a replica configured with a longer lifetime.
 */
const keepClientRevocationsMs = (): number => Math.max(24 * 3600, getConfig().authAccessTokenTtl) * 1000;

/** The subject of a `scopes` revocation: a version is digits, so `<version>:<clientId>` names one pair only. */
export const scopesSubject = (clientId: string, version: number): string => `${version}:${clientId}`;

export const revocationOf = (kind: 'client' | 'secret' | 'scopes', subject: string, clientId: string): Revocation => ({
  kind,
  subject,
  clientId,
  expiresAt: new Date(Date.now() + keepClientRevocationsMs()),
});

/**
 * Records revocations in the caller's transaction (the one deleting the client or secret, so both commit or neither),
 * NOTIFYs the API processes on commit and prunes the rows whose tokens have all expired.
 */
export async function recordRevocations(trx: Knex.Transaction, revocations: Revocation[]): Promise<void> {
  if (revocations.length === 0) return;
  // One writer at a time, until commit: rows then become visible in `seq` order, so a reader that has seen seq N has
  // seen every row below N and can read on from there (readRevocationsAfter) without missing a late commit.
  await trx.raw('SELECT pg_advisory_xact_lock(hashtext(?))', [REVOCATIONS_CHANNEL]);
  await trx('auth_token_revocations').where('expires_at', '<', trx.fn.now()).delete();
  // A repeated revocation (a token revoked twice) takes a new seq, so readers see its later expiry too.
  await trx.raw(
    `WITH r AS (
       INSERT INTO auth_token_revocations (kind, subject, client_id, expires_at)
       SELECT * FROM unnest(?::text[], ?::text[], ?::text[], ?::timestamptz[])
       ON CONFLICT (kind, subject) DO UPDATE SET seq = excluded.seq, revoked_at = excluded.revoked_at,
         expires_at = greatest(auth_token_revocations.expires_at, excluded.expires_at)
       RETURNING 1)
     SELECT pg_notify(?, '') FROM (SELECT 1 FROM r LIMIT 1) AS written`,
    [
      revocations.map((r) => r.kind),
      revocations.map((r) => r.subject),
      revocations.map((r) => r.clientId),
      revocations.map((r) => r.expiresAt.toISOString()),
      REVOCATIONS_CHANNEL,
    ],
  );
}

/** The revocations recorded after `seq`, in order. Takes a plain pg connection: the reader's own LISTEN connection. */
export async function readRevocationsAfter(
  connection: { query: (sql: string, values: unknown[]) => Promise<{ rows: any[] }> },
  seq: number,
): Promise<RevocationRow[]> {
  const { rows } = await connection.query(
    `SELECT seq::float8 AS seq, kind, subject, (extract(epoch FROM expires_at) * 1000)::float8 AS expires_ms
     FROM auth_token_revocations WHERE seq > $1 ORDER BY seq`,
    [seq],
  );
  return rows.map((row) => ({ seq: row.seq, kind: row.kind, subject: row.subject, expiresAtMs: row.expires_ms }));
}

/** RFC 7009 revocation of one access token, kept until the token expires. */
export async function revokeToken(db: Knex, token: { jti: string; clientId: string; expiresAt: Date }): Promise<void> {
  await db.transaction((trx) =>
    recordRevocations(trx, [{ kind: 'token', subject: token.jti, clientId: token.clientId, expiresAt: token.expiresAt }]),
  );
}

import pg from 'pg';
import { readRevocationsAfter, REVOCATIONS_CHANNEL, type RevocationKind, type RevocationRow, scopesSubject } from '../../areas/auth';
import { ApiError } from '../../lib/errors';
import type { Logger } from '../../lib/logger';
import { isExpectedShutdownError } from '../../db/shutdown';

export interface TokenIdentity {
  clientId: string;
  /** The `client_secret_id` claim: the secret the token was issued with. */
  secretId?: string;
  jti?: string;
  /** The `client_scopes_version` claim: the client's scopes version the token was issued under (0 when absent). */
  scopesVersion?: number;
}

export interface RevocationList {
  /** @throws ApiError UNAUTHORIZED when the token is revoked, SERVICE_UNAVAILABLE when revocations cannot be read. */
  assertNotRevoked(token: TokenIdentity): Promise<void>;
  close(): Promise<void>;
}

/**
 * This process's copy of auth_token_revocations, so checking a token costs no query. It reads the rows after the last
 * `seq` it has seen when PostgreSQL NOTIFYs a revocation, and every `pollIntervalMs` in case a notification was missed
 * (LISTEN connection down). A copy older than `staleAfterMs` is refreshed before it answers, and without a refresh
 * the answer is 503: a process cut off from PostgreSQL cannot know what was revoked meanwhile.
 */
export async function startRevocationList(options: {
  databaseUrl: string;
  logger: Logger;
  pollIntervalMs?: number;
  staleAfterMs?: number;
}): Promise<RevocationList> {
  const { logger } = options;
  const pollIntervalMs = options.pollIntervalMs ?? 2000;
  const staleAfterMs = options.staleAfterMs ?? 10_000;
  const revoked: Record<RevocationKind, Map<string, number>> = { client: new Map(), secret: new Map(), token: new Map(), scopes: new Map() };
  let lastSeq = 0;
  let refreshedAt = 0;
  let prunedAt = Date.now();
  let connection: pg.Client | undefined;
  let refreshing: Promise<void> | undefined;
  let again = false;
  let failing = false;
  let closed = false;

  function lost(client: pg.Client, error: unknown): void {
    if (connection !== client) return;
    connection = undefined;
    client.end().catch(() => undefined);
    if (!closed) report(error, 'token revocation LISTEN connection lost; reconnecting at the next poll');
  }

  function report(error: unknown, message: string): void {
    if (isExpectedShutdownError(error)) logger.debug({ err: error }, message);
    else logger.warn({ err: error }, message);
  }

  async function connect(): Promise<pg.Client> {
    const client = new pg.Client({
      connectionString: options.databaseUrl,
      application_name: 'token-revocations',
      connectionTimeoutMillis: 5000,
      query_timeout: 5000,
    });
    client.on('error', (error) => lost(client, error));
    client.on('end', () => lost(client, new Error('connection ended')));
    client.on('notification', () => void refresh().catch(() => undefined));
    try {
      await client.connect();
      await client.query(`LISTEN ${REVOCATIONS_CHANNEL}`);
      return client;
    } catch (error) {
      await client.end().catch(() => undefined);
      throw error;
    }
  }

  function apply(rows: RevocationRow[]): void {
    for (const row of rows) {
      revoked[row.kind]?.set(row.subject, row.expiresAtMs);
      lastSeq = row.seq;
    }
    const now = Date.now();
    if (now - prunedAt < 60_000) return;
    prunedAt = now;
    for (const entries of Object.values(revoked)) for (const [subject, expiresAt] of entries) if (expiresAt < now) entries.delete(subject);
  }

  async function refreshOnce(): Promise<void> {
    if (closed) return;
    if (!connection) {
      const client = await connect();
      if (closed) return void (await client.end().catch(() => undefined));
      connection = client;
    }
    apply(await readRevocationsAfter(connection, lastSeq));
    refreshedAt = Date.now();
  }

  /** Single flight; a notification during a read makes it read once more, as that read may have missed the commit. */
  function refresh(): Promise<void> {
    if (refreshing) {
      again = true;
      return refreshing;
    }
    refreshing = (async () => {
      try {
        do {
          again = false;
          await refreshOnce();
        } while (again && !closed);
      } finally {
        refreshing = undefined;
      }
    })();
    return refreshing;
  }

  const poll = () =>
    refresh().then(
      () => {
        if (failing) logger.info('token revocations readable again');
        failing = false;
      },
      (error) => {
        if (!failing && !closed) report(error, 'could not read token revocations; tokens are refused with 503 once the copy is stale');
        failing = true;
      },
    );

  await refresh();
  const timer = setInterval(() => void poll(), pollIntervalMs);
  timer.unref();

  const isRevoked = (token: TokenIdentity) =>
    (token.jti !== undefined && revoked.token.has(token.jti)) ||
    // A narrowing of the client's scopes ended the version the token was issued under. Tokens issued before the claim
    // existed were issued under version 0, the column's default.
    (revoked.scopes.size > 0 && revoked.scopes.has(scopesSubject(token.clientId, token.scopesVersion ?? 0))) ||
    // Tokens name their secret, and deleting a client revokes each of its secrets; a token without the claim (issued
    // before it existed) is refused by its client alone.
    (token.secretId !== undefined ? revoked.secret.has(token.secretId) : revoked.client.has(token.clientId));

  return {
    async assertNotRevoked(token) {
      if (Date.now() - refreshedAt > staleAfterMs) {
        await poll();
        if (Date.now() - refreshedAt > staleAfterMs) {
          throw new ApiError('SERVICE_UNAVAILABLE', 'token revocations cannot be checked right now; retry later', {
            headers: { 'Retry-After': '1' },
          });
        }
      }
      if (isRevoked(token)) throw new ApiError('UNAUTHORIZED', 'access token revoked');
    },
    async close() {
      closed = true;
      clearInterval(timer);
      await refreshing?.catch(() => undefined);
      const client = connection;
      connection = undefined;
      await client?.end().catch(() => undefined);
    },
  };
}

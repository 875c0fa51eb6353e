import { createHash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { ApiError, notFound } from '../../lib/errors';
import { stringifyJson } from '../../lib/json';
import type { Knex } from 'knex';
import type { Executor } from '../../db/knex';
import { assertRedirectUris } from './redirect-uris';
import { recordRevocations, revocationOf, scopesSubject } from './revocations';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface ClientSecretView {
  id: string;
  name: string;
  lastDigits: string;
  metadata: Record<string, unknown>;
}

export interface ClientView {
  id: string;
  name: string;
  description: string;
  public: boolean;
  trusted: boolean;
  redirectUris: string[];
  postLogoutRedirectUris: string[];
  scopes: string[];
  metadata: Record<string, unknown>;
  secrets: ClientSecretView[];
}

export interface ClientInput {
  name?: string;
  description?: string;
  public?: boolean;
  trusted?: boolean;
  redirectUris?: string[];
  postLogoutRedirectUris?: string[];
  scopes?: string[];
  metadata?: Record<string, unknown>;
}

interface ClientRow {
  id: string;
  name: string;
  description: string;
  public: boolean;
  trusted: boolean;
  redirect_uris: string[];
  post_logout_redirect_uris: string[];
  scopes: string[];
  metadata: Record<string, unknown>;
}

interface SecretRow {
  id: string;
  client_id: string;
  name: string;
  hash: string;
  last_digits: string;
  metadata: Record<string, unknown>;
}

export const hashSecret = (secret: string): string => createHash('sha256').update(secret, 'utf8').digest('hex');

function present(row: ClientRow, secrets: SecretRow[]): ClientView {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    public: row.public,
    trusted: row.trusted,
    redirectUris: row.redirect_uris ?? [],
    postLogoutRedirectUris: row.post_logout_redirect_uris ?? [],
    scopes: row.scopes ?? [],
    metadata: row.metadata ?? {},
    // The hash stays in the database: no response ever carries it.
    secrets: secrets.map((s) => ({ id: s.id, name: s.name, lastDigits: s.last_digits, metadata: s.metadata ?? {} })),
  };
}

/** @throws ApiError VALIDATION for a redirect URI that is not allowed (redirect-uris.ts). */
function toRow(input: ClientInput) {
  assertRedirectUris('redirectUris', input.redirectUris);
  assertRedirectUris('postLogoutRedirectUris', input.postLogoutRedirectUris);
  return {
    name: input.name ?? '',
    description: input.description ?? '',
    public: input.public ?? false,
    trusted: input.trusted ?? false,
    redirect_uris: stringifyJson(input.redirectUris ?? []),
    post_logout_redirect_uris: stringifyJson(input.postLogoutRedirectUris ?? []),
    scopes: stringifyJson([...new Set(input.scopes ?? [])]),
    metadata: stringifyJson(input.metadata ?? {}),
  };
}

/** @throws ApiError NOT_FOUND when the client does not exist. */
export async function getClient(db: Executor, id: string): Promise<ClientView> {
  const row = await db<ClientRow>('auth_clients').where({ id }).first();
  if (!row) throw notFound(`client "${id}" not found`);
  const secrets = await db<SecretRow>('auth_client_secrets').where({ client_id: id }).orderBy('created_at');
  return present(row, secrets);
}

export async function listClients(db: Executor): Promise<ClientView[]> {
  const rows = await db<ClientRow>('auth_clients').orderBy('created_at').orderBy('id');
  const secrets = await db<SecretRow>('auth_client_secrets').orderBy('created_at');
  return rows.map((row) =>
    present(
      row,
      secrets.filter((s) => s.client_id === row.id),
    ),
  );
}

export async function createClient(db: Executor, input: ClientInput, id: string = randomUUID()): Promise<ClientView> {
  await db('auth_clients').insert({ id, ...toRow(input) });
  return getClient(db, id);
}

/**
 * Replaces the client's properties (PUT semantics); its secrets are kept. A replacement that removes any scope the
 * client had revokes every token it was issued before, whatever scopes each carries (the simplest rule that leaves no
 * token with a scope the client lost): its scopes version goes up and the ended version is revoked, in the transaction
 * of the change (see narrowScopes). Adding scopes revokes nothing: older tokens carry fewer scopes than the client
 * now has. @throws ApiError NOT_FOUND, VALIDATION
 */
export async function updateClient(db: Executor, id: string, input: ClientInput): Promise<ClientView> {
  const row = toRow(input);
  await db.transaction(async (trx) => {
    // Locked, so a concurrent replacement compares its scopes with this one's result, not with what both read.
    const current = await trx<ClientRow & { scopes_version: number }>('auth_clients').where({ id }).forUpdate().first('scopes', 'scopes_version');
    if (!current) throw notFound(`client "${id}" not found`);
    await trx('auth_clients').where({ id }).update(row);
    await narrowScopes(trx, id, current, input.scopes ?? []);
  });
  return getClient(db, id);
}

/**
 * When `scopes` lacks any of the client's `current` scopes: ends its scopes version (tokens name the version they were
 * issued under, see the issuer's extraTokenClaims) and revokes the tokens of the ended one. The token endpoint reads a
 * client's scopes and version in one row read, so a token holds either the old scopes and the old version (refused) or
 * the new ones.
 */
async function narrowScopes(
  trx: Knex.Transaction,
  id: string,
  current: { scopes: string[]; scopes_version: number },
  scopes: string[],
): Promise<void> {
  const kept = new Set(scopes);
  if ((current.scopes ?? []).every((scope) => kept.has(scope))) return;
  await trx('auth_clients')
    .where({ id })
    .update({ scopes_version: current.scopes_version + 1 });
  await recordRevocations(trx, [revocationOf('scopes', scopesSubject(id, current.scopes_version), id)]);
}

/**
 * Deletes the client and its secrets, and revokes their access tokens in the same transaction (by client and by each
 * secret: a token names the secret it was issued with, see revocations.ts). @throws ApiError NOT_FOUND
 */
export async function deleteClient(db: Executor, id: string): Promise<void> {
  await db.transaction(async (trx) => {
    // Locked first, so a secret created meanwhile waits and then fails, instead of slipping between the list and the delete.
    const client = await trx('auth_clients').where({ id }).forUpdate().first('id');
    if (!client) throw notFound(`client "${id}" not found`);
    const secretIds: string[] = await trx('auth_client_secrets').where({ client_id: id }).pluck('id');
    await trx('auth_clients').where({ id }).delete();
    await recordRevocations(trx, [revocationOf('client', id, id), ...secretIds.map((secretId) => revocationOf('secret', secretId, id))]);
  });
}

/**
 * Creates a secret and returns its clear value, the only time it is ever shown. `clear` may be given by the bootstrap
 * of a local start (BOOTSTRAP_CLIENT_SECRET); otherwise it is 256 random bits.
 * @throws ApiError NOT_FOUND
 */
export async function createClientSecret(
  db: Executor,
  clientId: string,
  input: { name?: string; metadata?: Record<string, unknown> },
  clear: string = randomBytes(32).toString('base64url'),
): Promise<ClientSecretView & { clear: string }> {
  await getClient(db, clientId);
  const id = randomUUID();
  const lastDigits = clear.slice(-4);
  await db('auth_client_secrets').insert({
    id,
    client_id: clientId,
    name: input.name ?? '',
    hash: hashSecret(clear),
    last_digits: lastDigits,
    metadata: stringifyJson(input.metadata ?? {}),
  });
  return { id, name: input.name ?? '', lastDigits, clear, metadata: input.metadata ?? {} };
}

/**
 * Deletes the secret and revokes the access tokens issued with it, in one transaction; the client's other secrets and
 * their tokens are untouched. @throws ApiError NOT_FOUND when the client or the secret does not exist.
 */
export async function deleteClientSecret(db: Executor, clientId: string, secretId: string): Promise<void> {
  await getClient(db, clientId);
  // Secret ids are UUIDs: any other string names no secret (a 404, not a uuid cast error from PostgreSQL).
  if (!UUID.test(secretId)) throw notFound(`secret "${secretId}" not found on client "${clientId}"`);
  await db.transaction(async (trx) => {
    const deleted = await trx('auth_client_secrets').where({ client_id: clientId, id: secretId }).delete();
    if (deleted === 0) throw notFound(`secret "${secretId}" not found on client "${clientId}"`);
    await recordRevocations(trx, [revocationOf('secret', secretId, clientId)]);
  });
}

/**
 * The id of the client's secret that `presented` matches, if any. Every stored hash is compared in constant time, so
 * the timing says nothing about which secret or how many bytes matched.
 */
export async function matchClientSecret(db: Executor, clientId: string, presented: unknown): Promise<string | undefined> {
  if (typeof presented !== 'string' || presented.length === 0 || presented.length > 512) return undefined;
  const candidate = Buffer.from(hashSecret(presented), 'hex');
  const rows = await db<SecretRow>('auth_client_secrets').where({ client_id: clientId }).select('id', 'hash');
  let matched: string | undefined;
  for (const row of rows) if (timingSafeEqual(candidate, Buffer.from(row.hash, 'hex'))) matched = row.id;
  return matched;
}

export async function verifyClientSecret(db: Executor, clientId: string, presented: unknown): Promise<boolean> {
  return (await matchClientSecret(db, clientId, presented)) !== undefined;
}

/** Makes sure `clientId` exists with all `scopes` and accepts `secret` (the bootstrap client of a local start). */
export async function ensureClient(db: Executor, clientId: string, secret: string, scopes: string[], name: string): Promise<void> {
  const existing = await db('auth_clients').where({ id: clientId }).first();
  if (!existing) await createClient(db, { name, scopes, description: 'Created at start-up for local use and scripts.' }, clientId);
  else {
    await db.transaction(async (trx) => {
      const current = await trx('auth_clients').where({ id: clientId }).forUpdate().first('scopes', 'scopes_version');
      await trx('auth_clients')
        .where({ id: clientId })
        .update({ scopes: stringifyJson(scopes) });
      await narrowScopes(trx, clientId, current, scopes);
    });
  }
  if (!(await verifyClientSecret(db, clientId, secret))) await createClientSecret(db, clientId, { name: 'bootstrap' }, secret);
}

export function assertKnownScopes(scopes: string[] | undefined, known: readonly string[]): void {
  const unknown = (scopes ?? []).filter((s) => !known.includes(s));
  if (unknown.length > 0) throw new ApiError('VALIDATION', `body.scopes: unknown scope(s) ${unknown.join(', ')}; known scopes: ${known.join(' ')}`);
}

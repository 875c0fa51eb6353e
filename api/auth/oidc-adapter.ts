import { AsyncLocalStorage } from 'node:async_hooks';
import type { Db } from '../../db/knex';
import { stringifyJson } from '../../lib/json';
import type { SecretStandIn } from './client-secret';

/**
 * Per token or revocation request: the client authentication method it used (basic or post; see token-request.ts), the
 * id of the stored secret its presented secret matched (client-secret.ts), and the client's scopes version read with
 * its scopes (issuer.ts puts both in the token).
 */
export const tokenRequestContext = new AsyncLocalStorage<{
  authMethod: 'client_secret_basic' | 'client_secret_post';
  secretId?: string;
  scopesVersion?: number;
}>();

let tokenRequestsInFlight = 0;

/**
 * Runs a token or revocation request inside tokenRequestContext, and disables the storage once no such request is in
 * flight. While any AsyncLocalStorage is enabled, Node runs promise hooks on every promise of the process: left on
 * after the first token request, they cost every later API request about a tenth of its CPU.
 */
export async function inTokenRequest<T>(
  store: { authMethod: 'client_secret_basic' | 'client_secret_post'; secretId?: string },
  next: () => Promise<T>,
): Promise<T> {
  tokenRequestsInFlight++;
  try {
    return await tokenRequestContext.run(store, next);
  } finally {
    if (--tokenRequestsInFlight === 0) tokenRequestContext.disable();
  }
}

interface StoredPayload {
  [key: string]: unknown;
  grantId?: string;
  uid?: string;
}

/**
 * oidc-provider's storage adapter on PostgreSQL. `Client` is read from our own `auth_clients` table, turned into the
 * provider's client metadata, whose `client_secret` is the client's stand-in (client-secret.ts), never a stored secret;
 * every other model (grants, sessions…) is a row of `auth_oidc_payloads`.
 */
export function createOidcAdapter(db: Db, standIn: SecretStandIn) {
  return class PostgresOidcAdapter {
    constructor(private readonly model: string) {}

    async upsert(id: string, payload: StoredPayload, expiresIn?: number): Promise<void> {
      const row = {
        model: this.model,
        id,
        payload: stringifyJson(payload),
        grant_id: payload.grantId ?? null,
        uid: payload.uid ?? null,
        expires_at: expiresIn ? new Date(Date.now() + expiresIn * 1000) : null,
      };
      await db('auth_oidc_payloads').insert(row).onConflict(['model', 'id']).merge();
    }

    async find(id: string): Promise<StoredPayload | undefined> {
      if (this.model === 'Client') return findClient(db, id, standIn);
      const row = await db('auth_oidc_payloads').where({ model: this.model, id }).first();
      if (!row || (row.expires_at && new Date(row.expires_at) < new Date())) return undefined;
      return { ...row.payload, ...(row.consumed_at ? { consumed: Math.floor(new Date(row.consumed_at).getTime() / 1000) } : {}) };
    }

    async findByUid(uid: string): Promise<StoredPayload | undefined> {
      const row = await db('auth_oidc_payloads').where({ model: this.model, uid }).first();
      return row?.payload;
    }

    async findByUserCode(): Promise<undefined> {
      return undefined; // the device flow is not enabled
    }

    async consume(id: string): Promise<void> {
      await db('auth_oidc_payloads').where({ model: this.model, id }).update({ consumed_at: new Date() });
    }

    async destroy(id: string): Promise<void> {
      await db('auth_oidc_payloads').where({ model: this.model, id }).delete();
    }

    async revokeByGrantId(grantId: string): Promise<void> {
      await db('auth_oidc_payloads').where({ grant_id: grantId }).delete();
    }
  };
}

async function findClient(db: Db, id: string, standIn: SecretStandIn): Promise<StoredPayload | undefined> {
  const row = await db('auth_clients').where({ id }).first();
  if (!row || row.public) return undefined; // only confidential clients may use client_credentials
  const store = tokenRequestContext.getStore();
  const authMethod = store?.authMethod ?? 'client_secret_basic';
  // Read with the scopes the token will be granted from. Should the client be read twice in one request, around a
  // narrowing of its scopes, the lower version is kept: a token is then refused rather than kept with lost scopes.
  if (store) store.scopesVersion = Math.min(store.scopesVersion ?? Number.MAX_SAFE_INTEGER, row.scopes_version ?? 0);
  return {
    client_id: row.id,
    client_secret: standIn(row.id),
    client_name: row.name || row.id,
    grant_types: ['client_credentials'],
    response_types: [],
    redirect_uris: [],
    token_endpoint_auth_method: authMethod,
    scope: (row.scopes as string[]).join(' '),
  };
}

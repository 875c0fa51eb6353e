import { exportJWK, generateKeyPair, type JWK } from 'jose';
import { randomUUID } from 'node:crypto';
import type { Db, Executor } from '../../db/knex';
import { stringifyJson } from '../../lib/json';

/** How many keys the JWKS publishes: the signing key and the one before it, so tokens outlive a rotation. */
const PUBLISHED_KEYS = 2;

async function newSigningKey(db: Executor): Promise<JWK> {
  const { privateKey } = await generateKeyPair('RS256', { modulusLength: 2048, extractable: true });
  const jwk = { ...(await exportJWK(privateKey)), kid: randomUUID(), alg: 'RS256', use: 'sig' };
  await db('auth_signing_keys').insert({ kid: jwk.kid, private_jwk: stringifyJson(jwk) });
  return jwk;
}

/** Any constant shared by every API process: the lock under which the first start creates the first key. */
const FIRST_KEY_LOCK = 727_314_001;

/**
 * The issuer's private keys, newest (signing) first. Keys live in PostgreSQL, so every API replica signs with the same
 * key and a restart does not invalidate live tokens. The first start creates one, under a transaction-scoped advisory
 * lock: replicas starting together on a fresh database would otherwise each create a key, trust only their own, and
 * refuse each other's tokens behind a load balancer (found by the production drill).
 */
export async function loadSigningKeys(db: Db): Promise<JWK[]> {
  const read = async (executor: Executor) =>
    (await executor('auth_signing_keys').orderBy('created_at', 'desc').limit(PUBLISHED_KEYS)).map((row: { private_jwk: JWK }) => row.private_jwk);
  const keys = await read(db);
  if (keys.length > 0) return keys;
  return db.transaction(async (trx) => {
    await trx.raw('SELECT pg_advisory_xact_lock(?)', [FIRST_KEY_LOCK]);
    const existing = await read(trx);
    return existing.length > 0 ? existing : [await newSigningKey(trx)];
  });
}

/** Adds a new signing key; the previous one stays published until the next rotation. Restart the API to use it. */
export async function rotateSigningKey(db: Executor): Promise<string> {
  const jwk = await newSigningKey(db);
  return jwk.kid as string;
}

export function publicJwk(jwk: JWK): JWK {
  const { d: _d, p: _p, q: _q, dp: _dp, dq: _dq, qi: _qi, ...publicPart } = jwk;
  return publicPart;
}

import { exportJWK, generateKeyPair, type JWK } from 'jose';
import { randomUUID } from 'node:crypto';
import type { Executor } from '../../db/knex';
import { stringifyJson } from '../../lib/json';

/** How many keys the JWKS publishes: the signing key and the one before it, so tokens outlive a rotation. */
const PUBLISHED_KEYS = 2;

async function newSigningKey(db: Executor): Promise<JWK> {
  const { privateKey } = await generateKeyPair('RS256', { modulusLength: 2048, extractable: true });
  const jwk = { ...(await exportJWK(privateKey)), kid: randomUUID(), alg: 'RS256', use: 'sig' };
  await db('auth_signing_keys').insert({ kid: jwk.kid, private_jwk: stringifyJson(jwk) });
  return jwk;
}

/**
 * The issuer's private keys, newest (signing) first. Keys live in PostgreSQL, so every API replica signs with the same
 * key and a restart does not invalidate live tokens. The first start creates one.
 */
export async function loadSigningKeys(db: Executor): Promise<JWK[]> {
  const rows = await db('auth_signing_keys').orderBy('created_at', 'desc').limit(PUBLISHED_KEYS);
  if (rows.length > 0) return rows.map((row: { private_jwk: JWK }) => row.private_jwk);
  // Two replicas starting together may both create a key; both are then published and either signs validly.
  return [await newSigningKey(db)];
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

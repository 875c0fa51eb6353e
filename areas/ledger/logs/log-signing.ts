import { createHash, createPrivateKey, createPublicKey, randomBytes, sign, verify, type KeyObject } from 'node:crypto';
import type { Executor } from '../types';

/**
 * Signed checkpoints of the log chain. The chain alone is unkeyed SHA-256: anyone can edit an export and re-hash it end
 * to end. A checkpoint is an Ed25519 signature, under a platform key, of one log's id and chain hash; since that hash
 * covers every log before it, a valid checkpoint on the last log of an export authenticates the whole export.
 *
 * Keys are platform secrets (`platform_secrets`, one row per key named `ledger-log-signing-key:<keyId>`, the value the
 * 32-byte Ed25519 seed): every process of a deployment signs with the newest and verifies with all of them, so a
 * rotation (a new row) keeps every checkpoint signed before it verifiable. The key id is the public key's fingerprint,
 * so a verifier given only public keys can match them to checkpoints.
 */

/** The hasher signs the chain head at every log whose id is a multiple of this minus one (99, 199, ...). */
export const CHECKPOINT_EVERY = 100;
export const isCheckpointId = (id: bigint) => (id + 1n) % BigInt(CHECKPOINT_EVERY) === 0n;

const KEY_PREFIX = 'ledger-log-signing-key:';
/** The first key is created under this lock, so processes starting together on a fresh database create one, not several. */
const FIRST_KEY_LOCK = 727_314_011;
/** How long a process trusts its key list before reading it again: a rotation is picked up this soon without a restart. */
const KEYS_TTL_MS = 5_000;

const PKCS8_ED25519_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');
const SPKI_ED25519_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');

export interface LogPublicKey {
  keyId: string;
  /** The raw 32-byte Ed25519 public key, base64url (a JWK's `x`). */
  publicKey: string;
  key: KeyObject;
}

export interface LogSigningKey extends LogPublicKey {
  privateKey: KeyObject;
  createdAt: Date;
}

export interface Checkpoint {
  keyId: string;
  /** Ed25519 signature, base64. */
  signature: string;
}

const keyIdOf = (raw: Buffer) => createHash('sha256').update(raw).digest('base64url').slice(0, 16);

/** A signing key from its 32-byte seed (the stored form; tests and tools sign foreign exports with one). */
export function signingKeyFromSeed(seed: Buffer, createdAt: Date): LogSigningKey {
  const privateKey = createPrivateKey({ key: Buffer.concat([PKCS8_ED25519_PREFIX, seed]), format: 'der', type: 'pkcs8' });
  const key = createPublicKey(privateKey);
  const raw = key.export({ format: 'der', type: 'spki' }).subarray(SPKI_ED25519_PREFIX.length);
  return { keyId: keyIdOf(raw), publicKey: raw.toString('base64url'), key, privateKey, createdAt };
}

/**
 * A public key a caller hands in (a foreign export's), base64url or base64 of the raw 32 bytes.
 * @returns undefined when it is not an Ed25519 public key
 */
export function parsePublicKey(text: string): LogPublicKey | undefined {
  const raw = Buffer.from(text.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
  if (raw.length !== 32) return undefined;
  try {
    const key = createPublicKey({ key: Buffer.concat([SPKI_ED25519_PREFIX, raw]), format: 'der', type: 'spki' });
    return { keyId: keyIdOf(raw), publicKey: raw.toString('base64url'), key };
  } catch {
    return undefined;
  }
}

const cache = new WeakMap<object, { at: number; keys: LogSigningKey[] }>();

async function readKeys(db: Executor): Promise<LogSigningKey[]> {
  const rows = (await db('platform_secrets')
    .where('name', 'like', `${KEY_PREFIX}%`)
    .orderBy([
      { column: 'created_at', order: 'desc' },
      { column: 'name', order: 'desc' },
    ])
    .select('value', 'created_at')) as Array<{
    value: Buffer;
    created_at: Date;
  }>;
  return rows.map((row) => signingKeyFromSeed(row.value, row.created_at));
}

async function insertKey(db: Executor): Promise<LogSigningKey> {
  const key = signingKeyFromSeed(randomBytes(32), new Date());
  const seed = key.privateKey.export({ format: 'der', type: 'pkcs8' }).subarray(PKCS8_ED25519_PREFIX.length);
  await db('platform_secrets').insert({ name: `${KEY_PREFIX}${key.keyId}`, value: seed });
  return key;
}

/**
 * Every log signing key, newest (the one that signs) first; the first is created when there is none, unless `create`
 * is false (a verification only reads: with no key, no checkpoint verifies). Cached per process for a few seconds;
 * `refresh` reads them again (a checkpoint naming a key this process has not seen yet).
 */
export async function loadLogKeys(db: Executor, refresh = false, create = true): Promise<LogSigningKey[]> {
  const cached = cache.get(db);
  if (!refresh && cached && Date.now() - cached.at < KEYS_TTL_MS) return cached.keys;
  let keys = await readKeys(db);
  if (keys.length === 0 && !create) return keys;
  if (keys.length === 0) {
    keys = await db.transaction(async (trx) => {
      await trx.raw('SELECT pg_advisory_xact_lock(?)', [FIRST_KEY_LOCK]);
      const existing = await readKeys(trx);
      return existing.length > 0 ? existing : [await insertKey(trx)];
    });
  }
  cache.set(db, { at: Date.now(), keys });
  return keys;
}

/** Adds a key, which signs from then on (within KEYS_TTL_MS in every process); older keys stay to verify. @returns its id */
export async function rotateLogSigningKey(db: Executor): Promise<string> {
  const key = await insertKey(db);
  cache.delete(db);
  return key.keyId;
}

const message = (id: bigint, hash: string) => Buffer.from(`formance-ledger-log-checkpoint:v1:${id}:${hash}`, 'utf8');

/** Signs the chain head at log `id` (its hash, base64). */
export function signCheckpoint(key: LogSigningKey, id: bigint, hash: string): Checkpoint {
  return { keyId: key.keyId, signature: sign(null, message(id, hash), key.privateKey).toString('base64') };
}

/** @returns the problem with a checkpoint, or undefined when one of `keys` signed this log id and hash */
export function checkCheckpoint(keys: LogPublicKey[], id: bigint, hash: string, checkpoint: Checkpoint): string | undefined {
  const key = keys.find((k) => k.keyId === checkpoint.keyId);
  if (!key) return `log ${id}: its checkpoint is signed by key "${checkpoint.keyId}", which is not a trusted key`;
  const signature = Buffer.from(checkpoint.signature, 'base64');
  if (signature.length !== 64 || !verify(null, message(id, hash), key.key, signature)) {
    return `log ${id}: its checkpoint signature does not verify (the log or one before it was changed, and the chain hashed again)`;
  }
  return undefined;
}

/** The public part of the keys, as `GET /api/ledger/v2/_/log-signing-keys` serves them. */
export async function listLogPublicKeys(
  db: Executor,
): Promise<Array<{ keyId: string; algorithm: 'Ed25519'; publicKey: string; createdAt: Date; current: boolean }>> {
  const keys = await loadLogKeys(db, true);
  return keys.map((k, i) => ({ keyId: k.keyId, algorithm: 'Ed25519', publicKey: k.publicKey, createdAt: k.createdAt, current: i === 0 }));
}

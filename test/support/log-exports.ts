import { randomBytes } from 'node:crypto';
import { chainHash } from '../../areas/ledger/logs/log';
import { CHECKPOINT_EVERY, signCheckpoint, signingKeyFromSeed, type LogSigningKey } from '../../areas/ledger/logs/log-signing';
import { stringifyJson } from '../../lib/json';

/** A signer of another deployment: its own Ed25519 key, whose public part an import is given as `publicKey`. */
export const foreignSigner = (): LogSigningKey => signingKeyFromSeed(randomBytes(32), new Date());

export interface ExportLog {
  type: string;
  data: unknown;
  date?: Date;
}

/**
 * An export as another deployment writes it: ids from 0, each log hashed onto the chain, a checkpoint every
 * CHECKPOINT_EVERY logs and on the last one, signed by `signer`.
 */
export function signedExport(logs: ExportLog[], signer: LogSigningKey): string {
  let previous: Buffer | null = null;
  const base = Date.parse('2026-01-01T00:00:00.000Z');
  return logs
    .map((log, i) => {
      const entry = { id: BigInt(i), type: log.type, date: log.date ?? new Date(base + i), data: log.data };
      previous = chainHash(previous, entry);
      const hash = previous.toString('base64');
      const checkpointed = (i + 1) % CHECKPOINT_EVERY === 0 || i === logs.length - 1;
      return `${stringifyJson({ ...entry, hash, ...(checkpointed ? { checkpoint: signCheckpoint(signer, entry.id, hash) } : {}) })}\n`;
    })
    .join('');
}

/** A NEW_TRANSACTION log's data as the ledger writes it. */
export const newTransaction = (
  id: number,
  postings: unknown[],
  extra: { metadata?: Record<string, string>; timestamp?: string; reference?: string } = {},
) => ({
  transaction: {
    id,
    postings,
    metadata: extra.metadata ?? {},
    timestamp: extra.timestamp ?? '2026-01-01T00:00:00.000Z',
    ...(extra.reference !== undefined ? { reference: extra.reference } : {}),
    reverted: false,
  },
  accountMetadata: {},
});

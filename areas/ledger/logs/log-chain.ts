import { chainHash } from './log';

export interface ChainLog {
  id: bigint;
  type: string;
  date: Date;
  data: unknown;
  /** The stored or exported hash, base64; absent on a log the hasher has not reached. */
  hash?: string;
}

/**
 * Walks a log stream from id 0 and names the first log that breaks it: a gap or a repeated id, a hash that does not
 * recompute, or a hashed log after an unhashed one (the hasher goes in id order, so a hash after a hole in the hashes
 * was not written by it). `requireHashes` (an import) also refuses an unhashed log.
 */
export class ChainVerifier {
  private previous: Buffer | null = null;
  private expected = 0n;
  private unhashedFrom: bigint | undefined;
  hashed = 0;
  logs = 0;

  constructor(private readonly requireHashes = false) {}

  /** @returns the problem with this log, or undefined when it extends the chain */
  next(log: ChainLog): string | undefined {
    if (log.id !== this.expected) return `log ${log.id}: expected id ${this.expected} (ids are dense from 0)`;
    this.expected += 1n;
    this.logs += 1;
    if (log.hash === undefined) {
      if (this.requireHashes) return `log ${log.id}: no hash (export once GET .../logs/chain shows a lag of 0)`;
      this.unhashedFrom ??= log.id;
      return undefined;
    }
    if (this.unhashedFrom !== undefined) return `log ${log.id}: hashed after the unhashed log ${this.unhashedFrom}`;
    const hash = chainHash(this.previous, log);
    if (hash.toString('base64') !== log.hash) return `log ${log.id}: hash does not verify (the log or one before it was changed)`;
    this.previous = hash;
    this.hashed += 1;
    return undefined;
  }
}

import type { BatchOutcome, BatchWrite } from './write-pipeline';
import { isMetadata } from './metadata-write';

/**
 * Units of a batch of the write pipeline (write-pipeline.ts, BatchOptions.units): a bulk's writes that the group commit
 * batches with other requests' writes, with the rules that hold for them alone, and the outcomes those rules give.
 */

/** Consecutive writes of a batch that go together (BatchOptions.units). */
export interface WriteUnit {
  /**
   * Leaves unwritten every write of the unit after the first one refused (a bulk that stops at its first failure, as if
   * its elements had run one after the other); each is answered with NOT_RUN, and its claimed key is released.
   */
  stopAtFirstRefusal?: boolean;
  /**
   * All or nothing (an atomic bulk): once one write of the unit is refused, the unit's accepted writes are answered
   * with ABORTED, their keys released, and the round is checked again without them, so no write of the batch was
   * checked against volumes the unit would have moved. Implies stopAtFirstRefusal. Transactions of plain postings
   * only: such a write is never deferred to a later round, so the unit is decided in one round.
   */
  atomic?: boolean;
}

/** A transaction of plain postings: checked without the database and never deferred to a later round. */
export const isPlainPostings = (write: BatchWrite): boolean =>
  !isMetadata(write) && write.request.postings !== undefined && !write.request.script && !write.revert && !write.settle;

/** A script: its check may write (the account metadata it sets, so that a later script reads it). */
export const isScript = (write: BatchWrite): boolean => !isMetadata(write) && write.request.script !== undefined;

/**
 * An atomic unit is undone by checking its round again without it, which holds only if the unit is decided in one
 * round (plain postings) and nothing the round checked wrote to the database (no script: its account metadata would
 * stay written for a write the second check refuses). The group commit keeps scripts out of such batches.
 * @throws Error when a batch breaks this (a caller's bug, not a client's)
 */
export function assertAtomicUnitsDecidable(writes: BatchWrite[], units: ReadonlyArray<WriteUnit | undefined> = []): void {
  if (!units.some((unit) => unit?.atomic)) return;
  for (const [index, write] of writes.entries()) {
    if (units[index]?.atomic ? !isPlainPostings(write) : isScript(write)) {
      throw new Error(`write ${index}: a batch with an atomic unit takes plain postings in its atomic units and no script`);
    }
  }
}

/** Every write of the batch one unit. */
export const asOneUnit = (writes: readonly BatchWrite[], unit: WriteUnit): WriteUnit[] => writes.map(() => unit);

/** The outcome of a write left unwritten because an earlier write of its unit was refused (WriteUnit.stopAtFirstRefusal). */
export const NOT_RUN = new Error('not run: an earlier write of the batch was refused');

/** The outcome of an accepted write left unwritten because another write of its atomic unit was refused (WriteUnit.atomic). */
export const ABORTED = new Error('not written: another write of the atomic batch was refused');

/**
 * The units of one round of a batch, as its checks go (write-pipeline.ts, commitRound): which units a refusal stopped,
 * this round's and earlier rounds', and which writes this round's checks refused or left unrun, which an atomic unit's
 * abort undoes after it.
 */
export class RoundUnits {
  private readonly stopped = new Set<WriteUnit>();
  private readonly decided: number[] = [];

  constructor(
    private readonly units: ReadonlyArray<WriteUnit | undefined>,
    private readonly outcomes: Array<BatchOutcome | undefined>,
    from: number,
  ) {
    for (let index = 0; index < from; index++) if (this.isRefused(index)) this.stop(index);
  }

  /** Leaves the write unrun (NOT_RUN) when a refusal stopped its unit; then true. */
  leftUnrun(index: number): boolean {
    const unit = this.units[index];
    if (!unit || !this.stopped.has(unit)) return false;
    if (!this.outcomes[index]) {
      this.outcomes[index] = { error: NOT_RUN };
      this.decided.push(index);
    }
    return true;
  }

  /** Records the write's outcome from before the round (a key's answer or conflict): a conflict stops its unit. */
  early(index: number): void {
    if (this.isRefused(index)) this.stop(index);
  }

  /** Records the write's refusal by this round's checks. */
  refused(index: number, error: unknown): void {
    this.outcomes[index] = { error };
    this.decided.push(index);
    this.stop(index);
  }

  /**
   * An atomic unit with a refused write takes none of its writes. The first such unit's accepted writes are answered
   * ABORTED, and the writes after it that this round refused or left unrun are undone: they were checked against what
   * it moved, and the round is checked again without it (true: check the round again). The writes before it stand. One
   * unit per pass: a later unit's refusal may have been caused by this one.
   */
  abortedFirst(accepted: ReadonlyArray<{ index: number }>): boolean {
    const at = accepted.find((a) => this.units[a.index]?.atomic && this.stopped.has(this.units[a.index]!));
    if (!at) return false;
    const unit = this.units[at.index]!;
    for (const a of accepted) if (this.units[a.index] === unit) this.outcomes[a.index] = { error: ABORTED };
    for (const index of this.decided) if (index > at.index && this.units[index] !== unit) this.outcomes[index] = undefined;
    return true;
  }

  private isRefused(index: number): boolean {
    const outcome = this.outcomes[index];
    return outcome !== undefined && 'error' in outcome;
  }

  /** Stops the write's unit, when its rules stop at a refusal. */
  private stop(index: number): void {
    const unit = this.units[index];
    if (unit?.stopAtFirstRefusal || unit?.atomic) this.stopped.add(unit);
  }
}

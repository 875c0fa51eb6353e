import type { DrillClient } from '../drills/client';
import { sleep } from '../drills/client';

export type LoadKind = 'ledger' | 'hold' | 'orchestration';

/** One request as a client saw it: a status 0 is a transport failure (reset, refused, timeout). */
export interface Sample {
  at: number;
  kind: LoadKind;
  status: number;
}

export const isSuccess = (status: number) => status >= 200 && status < 300;

export interface LoadTargets {
  ledger: string;
  walletId: string;
  workflowId: string;
}

/**
 * Steady mixed load through the load balancer: ledger writers, a wallet holder (hold, then confirm), orchestration
 * runs with wait=true. A write that fails is retried under the same Idempotency-Key until it is acknowledged, as a
 * careful client does; every attempt is a sample, so retries count as errors seen by clients. Runs are not retried
 * (a run has no idempotency key): each attempt carries a fresh tag, and the checks count transactions per tag.
 */
export class MixedLoad {
  readonly samples: Sample[] = [];
  /** References of ledger writes the API acknowledged (also their Idempotency-Key). */
  readonly acknowledgedWrites: string[] = [];
  readonly attemptedWrites: string[] = [];
  readonly acknowledgedHolds: string[] = [];
  readonly confirmedHolds: string[] = [];
  /** Tags (`n` variable) of runs whose request was sent, and of those that answered a finished, successful run. */
  readonly attemptedRuns: string[] = [];
  readonly acknowledgedRuns: string[] = [];
  private stopping = false;
  private loops: Array<Promise<void>> = [];

  constructor(
    private readonly client: DrillClient,
    private readonly targets: LoadTargets,
  ) {}

  start(options = { writers: 3, holders: 1, runners: 2 }): void {
    for (let w = 0; w < options.writers; w += 1) this.loops.push(this.writer(w));
    for (let h = 0; h < options.holders; h += 1) this.loops.push(this.holder(h));
    for (let r = 0; r < options.runners; r += 1) this.loops.push(this.runner(r));
  }

  async stop(): Promise<void> {
    this.stopping = true;
    await Promise.all(this.loops);
  }

  private async attempt(kind: LoadKind, method: string, path: string, body: unknown, headers: Record<string, string> = {}, timeoutMs = 20_000) {
    const answer = await this.client.call(method, path, body, timeoutMs, headers);
    this.samples.push({ at: Date.now(), kind, status: answer.status });
    return answer;
  }

  /** Retries until acknowledged; bounded, so a drill never hangs on a platform that stays down. */
  private async untilAcknowledged(kind: LoadKind, method: string, path: string, body: unknown, key: string) {
    const deadline = Date.now() + 180_000;
    for (;;) {
      const answer = await this.attempt(kind, method, path, body, { 'Idempotency-Key': key });
      if (isSuccess(answer.status)) return answer;
      if (Date.now() > deadline || (answer.status >= 400 && answer.status < 500 && answer.status !== 408 && answer.status !== 429)) return undefined;
      await sleep(200);
    }
  }

  private async writer(w: number): Promise<void> {
    for (let i = 0; !this.stopping; i += 1) {
      const reference = `pd-${w}-${i}`;
      this.attemptedWrites.push(reference);
      const body = { postings: [{ source: 'world', destination: `load:${w}`, amount: 1, asset: 'USD/2' }], reference };
      const answer = await this.untilAcknowledged('ledger', 'POST', `/api/ledger/v2/${this.targets.ledger}/transactions`, body, reference);
      if (answer) this.acknowledgedWrites.push(reference);
      await sleep(100);
    }
  }

  private async holder(h: number): Promise<void> {
    for (let i = 0; !this.stopping; i += 1) {
      const hold = await this.untilAcknowledged(
        'hold',
        'POST',
        `/api/wallets/wallets/${this.targets.walletId}/debit`,
        { amount: { asset: 'USD/2', amount: 1 }, pending: true },
        `hold-${h}-${i}`,
      );
      if (!hold) continue;
      const holdId = String(hold.body.data.id);
      this.acknowledgedHolds.push(holdId);
      const confirmed = await this.untilAcknowledged('hold', 'POST', `/api/wallets/holds/${holdId}/confirm`, {}, `confirm-${h}-${i}`);
      if (confirmed) this.confirmedHolds.push(holdId);
      await sleep(100);
    }
  }

  private async runner(r: number): Promise<void> {
    for (let i = 0; !this.stopping; i += 1) {
      const n = `${r}-${i}`;
      this.attemptedRuns.push(n);
      const answer = await this.attempt(
        'orchestration',
        'POST',
        `/api/orchestration/v2/workflows/${this.targets.workflowId}/instances?wait=true`,
        { n },
        {},
        70_000,
      );
      if (isSuccess(answer.status) && answer.body?.data?.terminated && !answer.body.data.error) this.acknowledgedRuns.push(n);
      if (!isSuccess(answer.status)) await sleep(200);
    }
  }
}

/** Successful requests per second over [from, to). */
export function rate(samples: Sample[], from: number, to: number): number {
  if (to <= from) return 0;
  return samples.filter((s) => s.at >= from && s.at < to && isSuccess(s.status)).length / ((to - from) / 1000);
}

/** Failed requests over [from, to), by status (0: transport failure). */
export function errorsBetween(samples: Sample[], from: number, to: number): Map<number, number> {
  const errors = new Map<number, number>();
  for (const s of samples) if (s.at >= from && s.at < to && !isSuccess(s.status)) errors.set(s.status, (errors.get(s.status) ?? 0) + 1);
  return errors;
}

/**
 * When the load is back after a fault: the start of the first 3 s window, after the fault was removed, with no
 * failed request, at least half the baseline rate, and a success of every kind (so a stalled kind is not hidden by the
 * others). Returns undefined when that does not happen within `timeoutMs`.
 */
export async function waitForRecovery(samples: Sample[], baseline: number, removedAt: number, timeoutMs: number): Promise<number | undefined> {
  const deadline = Date.now() + timeoutMs;
  const windowMs = 3000;
  while (Date.now() < deadline) {
    const now = Date.now();
    const from = now - windowMs;
    if (from >= removedAt) {
      const recent = samples.filter((s) => s.at >= from);
      const kinds = new Set(recent.filter((s) => isSuccess(s.status)).map((s) => s.kind));
      if (recent.every((s) => isSuccess(s.status)) && rate(samples, from, now) >= baseline / 2 && kinds.size === 3) return from;
    }
    await sleep(250);
  }
  return undefined;
}

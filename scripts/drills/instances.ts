import { randomBytes } from 'node:crypto';
import type { Db } from '../../db/knex';
import { DrillClient, waitUntil } from './client';

export interface InstanceBatch {
  ledger: string;
  instanceIds: string[];
  /** Send stages per instance: each must leave exactly this many transactions tagged with the instance's number. */
  sendsPerInstance: number;
}

/**
 * Starts `count` instances of a workflow "delay, send, delay, send" on a fresh ledger. Each send is tagged with the
 * instance's number (metadata `drill`), so the check below can count each instance's transactions.
 */
export async function startInstances(client: DrillClient, count: number, delay = '2s'): Promise<InstanceBatch> {
  const ledger = `drill-${randomBytes(4).toString('hex')}`;
  await client.must('POST', `/api/ledger/v2/${ledger}`);
  const send = (amount: number) => ({
    send: {
      source: { account: { id: 'world', ledger } },
      destination: { account: { id: 'drill:${n}', ledger } },
      amount: { asset: 'USD/2', amount },
      metadata: { drill: '${n}' },
    },
  });
  const workflow = await client.must('POST', '/api/orchestration/v2/workflows', {
    name: `${ledger}-workflow`,
    stages: [{ delay: { duration: delay } }, send(100), { delay: { duration: '1s' } }, send(5)],
  });
  const instanceIds: string[] = [];
  for (let n = 0; n < count; n += 1) {
    const started = await client.must('POST', `/api/orchestration/v2/workflows/${workflow.data.id}/instances`, { n: String(n) });
    instanceIds.push(started.data.id);
  }
  return { ledger, instanceIds, sendsPerInstance: 2 };
}

/** Waits until every instance has terminated, and fails on any that ended with an error. */
export async function awaitInstances(client: DrillClient, batch: InstanceBatch, timeoutMs: number): Promise<void> {
  const pending = new Set(batch.instanceIds);
  const failed: string[] = [];
  await waitUntil(
    `${pending.size} instances terminated`,
    async () => {
      for (const id of [...pending]) {
        const answer = await client.call('GET', `/api/orchestration/v2/instances/${id}`, undefined, 10_000);
        if (answer.status !== 200 || !answer.body.data.terminated) continue;
        pending.delete(id);
        if (answer.body.data.error) failed.push(`${id}: ${answer.body.data.error}`);
      }
      return pending.size === 0;
    },
    timeoutMs,
    1000,
  );
  if (failed.length) throw new Error(`${failed.length} instances ended in error: ${failed.slice(0, 3).join('; ')}`);
}

/** Each instance's sends were posted exactly once: `sendsPerInstance` transactions per `drill` tag, no more, no less. */
export async function postedOnceViolations(db: Db, batch: InstanceBatch): Promise<string[]> {
  const rows = await db('ledger_transactions')
    .where({ ledger: batch.ledger })
    .select(db.raw(`metadata->>'drill' AS n`), db.raw('count(*)::int AS c'))
    .groupBy(db.raw(`metadata->>'drill'`));
  const counts = new Map<string, number>(rows.map((r: any) => [r.n, r.c]));
  const problems: string[] = [];
  for (let n = 0; n < batch.instanceIds.length; n += 1) {
    const c = counts.get(String(n)) ?? 0;
    if (c !== batch.sendsPerInstance) problems.push(`instance #${n}: ${c} transactions, expected ${batch.sendsPerInstance}`);
  }
  return problems;
}

import { Connection, Client } from '@temporalio/client';
import type { Db } from '../../db/knex';
import { sleep, waitUntil } from '../drills/client';
import { sweepAllLedgers } from '../drills/sweep';
import type { MixedLoad } from './load';

/**
 * Waits until the platform has finished what the load started (instances, deliveries, batches), then checks: every
 * acknowledged write stored exactly once, holds, runs, ledger invariants, one success per event and endpoint, one run
 * per event batch.
 */
export async function checkEverything(
  db: Db,
  load: MixedLoad,
  ctx: { ledger: string; workflowId: string; configId: string; outboxStart: number; receiverIds: () => string[]; temporalAddress: string },
): Promise<string[]> {
  const problems: string[] = [];
  const settle = async (what: string, probe: () => Promise<boolean>) =>
    waitUntil(what, probe, 240_000, 1000).catch((error: Error) => problems.push(error.message));
  await settle(
    'every instance terminated',
    async () => (await db('orchestration_instances').where({ workflow_id: ctx.workflowId, terminated: false }).count('* as c').first())?.c == 0,
  );
  await settle(
    'every event dispatched',
    async () => (await db('events_outbox').where('seq', '>', ctx.outboxStart).whereNull('dispatched_at').count('* as c').first())?.c == 0,
  );
  const committed = () => db('events_outbox').where('seq', '>', ctx.outboxStart).where({ app: 'ledger', type: 'COMMITTED_TRANSACTIONS' });
  await settle('every webhook delivered', async () => {
    const events = await committed().pluck('id');
    const delivered = await db('webhook_deliveries').where({ config_id: ctx.configId, status: 'succeeded' }).count('* as c').first();
    return Number(delivered?.c) >= events.length && events.length > 0;
  });
  await sleep(3000);

  // Ledger writes: each acknowledged reference once; retried ones never twice.
  const stored = await db('ledger_transactions')
    .where({ ledger: ctx.ledger })
    .whereNotNull('reference')
    .select('reference')
    .count('* as c')
    .groupBy('reference');
  const counts = new Map<string, number>(stored.map((r: any) => [r.reference, Number(r.c)]));
  for (const reference of load.acknowledgedWrites)
    if (counts.get(reference) !== 1) problems.push(`acknowledged write ${reference} stored ${counts.get(reference) ?? 0} times`);
  for (const [reference, c] of counts) if (c !== 1) problems.push(`write ${reference} stored ${c} times`);
  // Holds: every acknowledged hold exists; every acknowledged confirmation closed its hold; no hold created twice by a retry.
  const holds = new Map<string, any>(
    (await db('wallet_holds').whereIn('id', load.acknowledgedHolds).select('id', 'closed_at')).map((h: any) => [h.id, h]),
  );
  for (const id of load.acknowledgedHolds) if (!holds.has(id)) problems.push(`acknowledged hold ${id} is missing`);
  for (const id of load.confirmedHolds) if (!holds.get(id)?.closed_at) problems.push(`confirmed hold ${id} is still open`);
  // Runs: every instance terminated without error and posted exactly one transaction; every acknowledged run did.
  const instances = await db('orchestration_instances').where({ workflow_id: ctx.workflowId }).select('id', 'terminated', 'error');
  for (const i of instances)
    if (!i.terminated || i.error) problems.push(`instance ${i.id}: ${i.terminated ? `ended in error ${i.error}` : 'never terminated'}`);
  const runRows = await db('ledger_transactions')
    .where({ ledger: ctx.ledger })
    .whereRaw(`metadata->>'run' IS NOT NULL`)
    .select(db.raw(`metadata->>'run' AS n`))
    .count('* as c')
    .groupBy(db.raw(`metadata->>'run'`));
  const runCounts = new Map<string, number>(runRows.map((r: any) => [r.n, Number(r.c)]));
  for (const n of load.acknowledgedRuns)
    if (runCounts.get(n) !== 1) problems.push(`acknowledged run ${n} posted ${runCounts.get(n) ?? 0} transactions`);
  for (const [n, c] of runCounts) if (c !== 1) problems.push(`run ${n} posted ${c} transactions`);
  if (runRows.length !== instances.length) problems.push(`${instances.length} instances but ${runRows.length} runs posted`);
  // Ledger invariants over every ledger.
  problems.push(...(await sweepAllLedgers(db)).map((p) => `ledger invariant: ${p}`));
  // Webhooks: each committed event has one successful delivery to the endpoint, which received it exactly once.
  const events = await committed().pluck('id');
  const deliveries = await db('webhook_deliveries').where({ config_id: ctx.configId }).select('id', 'event_id', 'status');
  const byEvent = new Map<string, any>(deliveries.map((d: any) => [d.event_id, d]));
  for (const id of events)
    if (byEvent.get(id)?.status !== 'succeeded') problems.push(`event ${id}: delivery ${byEvent.get(id)?.status ?? 'missing'}`);
  const received = new Map<string, number>();
  for (const id of ctx.receiverIds()) received.set(id, (received.get(id) ?? 0) + 1);
  // Delivery to an HTTP endpoint is at least once: a worker killed while a batch's requests are in flight has them sent
  // again with the same webhook-id (Standard Webhooks' dedup key). A delivery never received is a loss; a repeat is counted.
  let repeats = 0;
  for (const d of deliveries) {
    const times = received.get(d.id) ?? 0;
    if (times === 0) problems.push(`delivery ${d.id} never received`);
    repeats += Math.max(0, times - 1);
  }
  // Event batches: one processEventBatch run per batch id, each completed.
  const batches = await db('events_outbox').where('seq', '>', ctx.outboxStart).whereNotNull('batch_id').distinct('batch_id').pluck('batch_id');
  const connection = await Connection.connect({ address: ctx.temporalAddress });
  try {
    const temporal = new Client({ connection, namespace: 'default' });
    const runs = new Map<string, string[]>();
    for await (const execution of temporal.workflow.list({ query: `WorkflowType = 'processEventBatch'` })) {
      runs.set(execution.workflowId, [...(runs.get(execution.workflowId) ?? []), execution.status.name]);
    }
    for (const batch of batches) {
      const statuses = runs.get(`events-${batch}`) ?? [];
      if (statuses.length !== 1 || statuses[0] !== 'COMPLETED') problems.push(`event batch ${batch}: runs ${statuses.join(',') || 'none'}`);
    }
  } finally {
    await connection.close();
  }
  process.stdout.write(
    `[drill:production] checked ${load.acknowledgedWrites.length} acknowledged writes, ${load.acknowledgedHolds.length} holds (${load.confirmedHolds.length} confirmed), ${instances.length} instances (${load.acknowledgedRuns.length} acknowledged), ${events.length} events, ${deliveries.length} deliveries, ${received.size} received (${repeats} repeated with the same webhook-id), ${batches.length} batches\n`,
  );
  return problems;
}

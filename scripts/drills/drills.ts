import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Db } from '../../db/knex';
import type { RunningPlatform } from '../stack/platform';
import { DrillClient, sleep, waitUntil } from './client';
import { awaitInstances, postedOnceViolations, startInstances } from './instances';

export interface DrillContext {
  platform: RunningPlatform;
  client: DrillClient;
  db: Db;
  instances: number;
  log: (line: string) => void;
}

/** What a drill observed; `problems` empty means it passed (the ledger sweep is added by the runner). */
export interface DrillOutcome {
  facts: Record<string, number | string>;
  problems: string[];
}

/** kill -9 the worker three times while the instances are in their delays and sends, restarting it each time. */
export async function workerKillDrill(ctx: DrillContext): Promise<DrillOutcome> {
  const batch = await startInstances(ctx.client, ctx.instances);
  for (let kill = 1; kill <= 3; kill += 1) {
    await sleep(1500);
    ctx.log(`kill -9 worker (${kill}/3)`);
    await ctx.platform.worker.restart('SIGKILL');
  }
  await awaitInstances(ctx.client, batch, 180_000);
  return { facts: { instances: batch.instanceIds.length, kills: 3 }, problems: await postedOnceViolations(ctx.db, batch) };
}

/** Stops the Temporal dev server (SQLite file kept) for 5 s mid-run, then starts it again. */
export async function temporalRestartDrill(ctx: DrillContext): Promise<DrillOutcome> {
  const temporal = ctx.platform.temporal;
  if (!temporal) throw new Error('this drill needs the dev server started by the platform (no TEMPORAL_ADDRESS)');
  const batch = await startInstances(ctx.client, ctx.instances);
  await sleep(1500);
  ctx.log('stopping Temporal');
  const downAt = Date.now();
  await temporal.stop();
  await sleep(5000);
  await temporal.start();
  const downMs = Date.now() - downAt;
  ctx.log(`Temporal back after ${downMs} ms`);
  await awaitInstances(ctx.client, batch, 240_000);
  return { facts: { instances: batch.instanceIds.length, temporalDownMs: downMs }, problems: await postedOnceViolations(ctx.db, batch) };
}

/**
 * Stops PostgreSQL for about 6 s while instances run and a client keeps writing ledger transactions (one at a time,
 * each with a unique reference) and polling the health check. Every acknowledged write must exist afterwards; the
 * health check must say 503 during the outage; no answer may be a 500 carrying a stack trace.
 */
export async function postgresRestartDrill(ctx: DrillContext): Promise<DrillOutcome> {
  const postgres = ctx.platform.postgres;
  if (!postgres) throw new Error('this drill needs the embedded PostgreSQL started by the platform (no DATABASE_URL)');
  const batch = await startInstances(ctx.client, ctx.instances);
  const ledger = batch.ledger;
  const acknowledged: string[] = [];
  const statuses = new Map<number, number>();
  const health = new Map<number, number>();
  const stackTraces: string[] = [];
  const internalErrors: string[] = [];
  let down = false;
  let stopLoad = false;
  let healthWhileDown = 0;
  let healthNot503WhileDown = 0;
  const writer = (async () => {
    for (let i = 0; !stopLoad && i < 100_000; i += 1) {
      const reference = `w-${i}`;
      const answer = await ctx.client.call(
        'POST',
        `/api/ledger/v2/${ledger}/transactions`,
        { postings: [{ source: 'world', destination: 'load', amount: 1, asset: 'USD/2' }], reference },
        15_000,
      );
      statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
      if (answer.status >= 200 && answer.status < 300) acknowledged.push(reference);
      if (answer.status >= 500 && /\n\s+at .+\(.*:\d+:\d+\)/.test(answer.text)) stackTraces.push(answer.text.slice(0, 300));
      if (answer.status === 500) internalErrors.push(answer.text.slice(0, 200));
      if (answer.status === 0 || answer.status >= 500) await sleep(100);
    }
  })();
  const prober = (async () => {
    for (let i = 0; !stopLoad && i < 100_000; i += 1) {
      const wasDown = down;
      const answer = await fetch(`${ctx.platform.apiUrl}/_healthcheck`, { signal: AbortSignal.timeout(5000) }).then(
        (r) => r.status,
        () => 0,
      );
      health.set(answer, (health.get(answer) ?? 0) + 1);
      if (wasDown && down) {
        healthWhileDown += 1;
        if (answer !== 503) healthNot503WhileDown += 1;
      }
      await sleep(200);
    }
  })();
  await sleep(2000);
  ctx.log('stopping PostgreSQL');
  down = true;
  await postgres.stop();
  await sleep(6000);
  await postgres.start();
  down = false;
  ctx.log('PostgreSQL started again');
  await sleep(3000);
  stopLoad = true;
  await Promise.all([writer, prober]);
  await awaitInstances(ctx.client, batch, 240_000);

  const stored = new Set(await ctx.db('ledger_transactions').where({ ledger }).whereNotNull('reference').pluck('reference'));
  const lost = acknowledged.filter((reference) => !stored.has(reference));
  const problems = [
    ...(await postedOnceViolations(ctx.db, batch)),
    ...lost.map((reference) => `acknowledged write ${reference} is missing`),
    ...stackTraces.map((text) => `500 with a stack trace: ${text}`),
    ...(healthWhileDown === 0 ? ['the health check was never polled while PostgreSQL was down'] : []),
    ...(healthNot503WhileDown > 0 ? [`${healthNot503WhileDown} health checks during the outage did not answer 503`] : []),
  ];
  const fmt = (m: Map<number, number>) =>
    [...m]
      .sort(([a], [b]) => a - b)
      .map(([s, c]) => `${s}×${c}`)
      .join(' ');
  return {
    facts: {
      instances: batch.instanceIds.length,
      writesAcknowledged: acknowledged.length,
      writeAnswers: fmt(statuses),
      healthAnswers: fmt(health),
      lost: lost.length,
      ...(internalErrors.length ? { first500: internalErrors[0] } : {}),
    },
    problems,
  };
}

/**
 * A webhook receiver on 127.0.0.1 that is down (port closed) while 20 ledger transactions commit, comes back after
 * 8 s, and must then receive every event, each answered 2xx exactly once (a retry after a success would be a duplicate).
 */
export async function webhookReceiverDrill(ctx: DrillContext): Promise<DrillOutcome> {
  const successes = new Map<string, number>();
  const ledger = `drill-webhooks-${Date.now().toString(36)}`;
  const receiver = http.createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      const id = String(req.headers['webhook-id'] ?? req.headers['formance-webhook-id'] ?? '');
      if (body.includes(`"${ledger}"`)) successes.set(id, (successes.get(id) ?? 0) + 1);
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const port = (receiver.address() as AddressInfo).port;
  await new Promise<void>((resolve) => receiver.close(() => resolve()));
  const config = await ctx.client.must('POST', '/api/webhooks/configs', {
    endpoint: `http://127.0.0.1:${port}/hook`,
    eventTypes: ['ledger.committed_transactions'],
  });
  try {
    await ctx.client.must('POST', `/api/ledger/v2/${ledger}`);
    const events = 20;
    for (let i = 0; i < events; i += 1) {
      await ctx.client.must('POST', `/api/ledger/v2/${ledger}/transactions`, {
        postings: [{ source: 'world', destination: `hooks:${i}`, amount: 1, asset: 'USD/2' }],
      });
    }
    ctx.log('receiver down; waiting 8 s');
    await sleep(8000);
    await new Promise<void>((resolve) => receiver.listen(port, '127.0.0.1', resolve));
    ctx.log('receiver up again');
    await waitUntil(`${events} events delivered`, async () => successes.size >= events, 120_000);
    // Let any late duplicate arrive before counting.
    await sleep(3000);
    const duplicates = [...successes].filter(([, count]) => count !== 1);
    return {
      facts: { events, delivered: successes.size, duplicates: duplicates.length },
      problems: [
        ...(successes.size !== events ? [`${successes.size} distinct events delivered, expected ${events}`] : []),
        ...duplicates.map(([id, count]) => `event ${id} received ${count} times`),
      ],
    };
  } finally {
    receiver.closeAllConnections();
    await new Promise<void>((resolve) => receiver.close(() => resolve()));
    await ctx.client.call('DELETE', `/api/webhooks/configs/${config.data.id}`);
  }
}

import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { startRevocationList, type RevocationList, type TokenIdentity } from '../../../api/auth/revocation-list';
import { recordRevocations, revocationOf } from '../../../areas/auth/revocations';
import { createDb, type Db } from '../../../db/knex';
import { createLogger } from '../../../lib/logger';
import { pollUntil } from '../../support/eventually';

const logger = createLogger('revocation-list-test', 'silent');
const databaseUrl = () => process.env.TEST_DATABASE_URL as string;

/** A TCP relay to PostgreSQL, so a test can cut one list's connection without touching the run's database. */
async function relay(target: URL, port = 0) {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((inbound) => {
    const outbound = net.connect(Number(target.port), target.hostname);
    for (const socket of [inbound, outbound]) {
      sockets.add(socket);
      socket.on('error', () => undefined);
      socket.on('close', () => (sockets.delete(socket), inbound.destroy(), outbound.destroy()));
    }
    inbound.pipe(outbound).pipe(inbound);
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const url = new URL(target);
  url.port = String((server.address() as AddressInfo).port);
  return {
    url: url.toString(),
    cut: () => new Promise<void>((resolve) => (server.close(() => resolve()), sockets.forEach((socket) => socket.destroy()))),
  };
}

async function outcome(list: RevocationList, token: TokenIdentity): Promise<'accepted' | number> {
  return list.assertNotRevoked(token).then(
    () => 'accepted' as const,
    (error: { status: number }) => error.status,
  );
}

/** Polls `list` until `token` gets `expected`, for at most 30 s; returns the last outcome. */
async function settle(list: RevocationList, token: TokenIdentity, expected: 'accepted' | number): Promise<'accepted' | number> {
  return pollUntil(
    () => outcome(list, token),
    (last) => last === expected,
    { intervalMs: 50, what: `the token to be ${expected}` },
  ).catch(() => outcome(list, token));
}

describe("revocation list (an API process's copy of the revocations)", () => {
  let db: Db;
  const lists: RevocationList[] = [];
  const start = async (options: { databaseUrl?: string; pollIntervalMs: number; staleAfterMs?: number }) => {
    const list = await startRevocationList({ databaseUrl: databaseUrl(), logger, ...options });
    lists.push(list);
    return list;
  };
  const revokeSecret = (secretId: string) => db.transaction((trx) => recordRevocations(trx, [revocationOf('secret', secretId, 'list-test')]));

  beforeAll(() => {
    db = createDb(databaseUrl(), { poolMax: 2 });
  });
  afterAll(async () => {
    for (const list of lists) await list.close();
    await db.destroy();
  });

  it('learns a revocation from its NOTIFY, without waiting for a poll', async () => {
    const list = await start({ pollIntervalMs: 3_600_000 });
    const token = { clientId: 'list-test', secretId: randomUUID() };
    expect(await outcome(list, token)).toBe('accepted');
    await revokeSecret(token.secretId);
    expect(await settle(list, token, 401)).toBe(401);
    await expect(list.assertNotRevoked(token)).rejects.toMatchObject({ code: 'UNAUTHORIZED', message: 'access token revoked' });
  });

  it('finds a revocation whose NOTIFY it missed at the next poll', async () => {
    const list = await start({ pollIntervalMs: 200 });
    const token = { clientId: 'list-test', jti: randomUUID() };
    expect(await outcome(list, token)).toBe('accepted');
    // Written without NOTIFY, as if the notification had been lost.
    await db('auth_token_revocations').insert({
      kind: 'token',
      subject: token.jti,
      client_id: 'list-test',
      expires_at: new Date(Date.now() + 60_000),
    });
    expect(await settle(list, token, 401)).toBe(401);
  });

  it('answers 503 once cut off from PostgreSQL for longer than staleAfterMs, and catches up on reconnection', async () => {
    const target = new URL(databaseUrl());
    let link = await relay(target);
    const list = await start({ databaseUrl: link.url, pollIntervalMs: 100, staleAfterMs: 1000 });
    const bystander = { clientId: 'list-test', secretId: randomUUID() };
    const revokedMeanwhile = { clientId: 'list-test', secretId: randomUUID() };
    expect(await outcome(list, bystander)).toBe('accepted');

    await link.cut();
    await revokeSecret(revokedMeanwhile.secretId);
    expect(await settle(list, bystander, 503)).toBe(503);

    link = await relay(target, Number(new URL(link.url).port));
    expect(await settle(list, bystander, 'accepted')).toBe('accepted');
    expect(await outcome(list, revokedMeanwhile)).toBe(401);
    await link.cut();
  });
});

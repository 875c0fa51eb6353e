import { chainHash } from '../../../areas/ledger/logs/log';
import { rotateLogSigningKey } from '../../../areas/ledger/logs/log-signing';
import { createDb, type Db } from '../../../db/knex';
import { parseJson, stringifyJson } from '../../../lib/json';
import { pollUntil } from '../../support/eventually';
import { api } from '../../support/http';
import { newLedger, posting } from '../../support/ledger';
import { exportLogs, hashedUpTo, importLogs, ledgerState } from '../../support/ledger-logs';
import { foreignSigner, signedExport } from '../../support/log-exports';

const bulk = (ledger: string, elements: unknown[]) => api('POST', `/api/ledger/v2/${ledger}/_bulk`, { body: elements });
const send = (source: string, destination: string, amount: number) => ({
  action: 'CREATE_TRANSACTION',
  data: { postings: [posting(source, destination, amount)] },
});

/** A ledger of `count` transactions, every log hashed (and, from 100 on, checkpointed by the hasher). */
async function ledgerOf(prefix: string, count: number): Promise<string> {
  const ledger = await newLedger(prefix);
  const res = await bulk(
    ledger,
    Array.from({ length: count }, (_, i) => send('world', `users:${i % 7}`, i + 1)),
  );
  expect(res.status).toBe(200);
  await hashedUpTo(ledger);
  return ledger;
}

/** Lines of an export changed by `edit`, then hashed again from log 0 as someone without the key can: checkpoints kept as they were. */
function rehashed(text: string, edit: (log: any) => void): string {
  let previous: Buffer | null = null;
  return text
    .trim()
    .split('\n')
    .map((line) => {
      const log = parseJson(line) as any;
      edit(log);
      previous = chainHash(previous, { id: log.id, type: log.type, date: new Date(log.date), data: log.data });
      log.hash = previous.toString('base64');
      return stringifyJson(log);
    })
    .join('\n');
}

const verify = async (ledger: string) => (await api('POST', `/api/ledger/v2/${ledger}/logs/verify`)).body.data;

/** Checkpoints: the hasher signs every 100th log, an export signs its last one, verify and import check the signatures. */
describe('ledger log signatures', () => {
  let db: Db;
  let source: string;
  let exported: string;

  beforeAll(async () => {
    db = createDb(process.env.TEST_DATABASE_URL!, { poolMax: 2 });
    source = await ledgerOf('logs-signed', 150);
    exported = (await exportLogs(source)).text;
  });
  afterAll(() => db.destroy());

  it('serves the public keys, signs every 100th log and the export tail, and verify checks the signatures', async () => {
    const keys = await api('GET', '/api/ledger/v2/_/log-signing-keys');
    expect(keys.status).toBe(200);
    expect(keys.body.data[0]).toMatchObject({
      algorithm: 'Ed25519',
      current: true,
      keyId: expect.any(String),
      publicKey: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
    });
    const lines = exported
      .trim()
      .split('\n')
      .map((line) => parseJson(line) as any);
    expect(lines).toHaveLength(150);
    expect(lines.filter((l) => l.checkpoint).map((l) => l.id)).toEqual([99, 149]);
    expect(keys.body.data.map((k: any) => k.keyId)).toContain(lines[99].checkpoint.keyId);
    expect(await verify(source)).toEqual({
      valid: true,
      logs: 150,
      hashed: 150,
      checkpoints: 1,
      lastCheckpointId: 99,
      mismatches: [],
      mismatchCount: 0,
    });
  });

  it('verify fails once a checkpoint signature or its key is tampered with, or the checkpoint deleted', async () => {
    const ledger = await ledgerOf('logs-tamper-sig', 100);
    expect(await verify(ledger)).toMatchObject({ valid: true, checkpoints: 1 });
    const stored = await db('ledger_log_checkpoints').where({ ledger, log_id: 99 }).first('key_id', 'signature');
    const flipped = Buffer.from(stored.signature);
    flipped[0] ^= 1;
    await db('ledger_log_checkpoints').where({ ledger, log_id: 99 }).update({ signature: flipped });
    expect(await verify(ledger)).toMatchObject({
      valid: false,
      firstBroken: { id: 99, reason: expect.stringContaining('signature does not verify') },
    });
    await db('ledger_log_checkpoints').where({ ledger, log_id: 99 }).update({ signature: stored.signature, key_id: 'not-a-real-key00' });
    expect(await verify(ledger)).toMatchObject({ valid: false, firstBroken: { id: 99, reason: expect.stringContaining('not a trusted key') } });
    await db('ledger_log_checkpoints').where({ ledger, log_id: 99 }).update({ key_id: stored.key_id });
    expect(await verify(ledger)).toMatchObject({ valid: true, checkpoints: 1 });
    await db('ledger_log_checkpoints').where({ ledger, log_id: 99 }).delete();
    expect(await verify(ledger)).toMatchObject({ valid: false, firstBroken: { id: 99, reason: expect.stringContaining('checkpoint is missing') } });
  });

  it('refuses an edited export hashed again end to end, naming the first checkpoint that no longer verifies', async () => {
    const target = await newLedger('logs-forged');
    // Log 10 pays 10^9 instead of 11: a valid transaction, a valid chain, and a signature that no longer matches.
    const forged = rehashed(exported, (log) => {
      if (log.id === 10) log.data.transaction.postings[0].amount = 1_000_000_000;
    });
    const res = await importLogs(target, forged);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      errorCode: 'IMPORT',
      errorDetails: { logId: 99 },
      errorMessage: expect.stringContaining('log 99: its checkpoint signature does not verify'),
    });

    // Past the last stored checkpoint, the export's own tail signature catches it.
    const tail = rehashed(exported, (log) => {
      if (log.id === 120) log.data.transaction.postings[0].amount = 1_000_000_000;
    });
    expect((await importLogs(target, tail)).body).toMatchObject({ errorCode: 'IMPORT', errorDetails: { logId: 149 } });

    // Without its checkpoints, nothing authenticates the export.
    const stripped = rehashed(exported, (log) => {
      delete log.checkpoint;
    });
    const unsigned = await importLogs(target, stripped);
    expect(unsigned.body).toMatchObject({
      errorCode: 'IMPORT',
      errorDetails: { logId: 149 },
      errorMessage: expect.stringContaining('no signed checkpoint'),
    });
    expect((await api('GET', `/api/ledger/v2/${target}/logs/chain`)).body.data).toMatchObject({ logs: 0 });

    // The export as it was imports, and the copy is the same ledger.
    expect((await importLogs(target, exported)).status).toBe(204);
    expect(await ledgerState(target)).toEqual(await ledgerState(source));
  });

  it("imports a foreign export with its signer's public key, and refuses it with another key or none", async () => {
    const signer = foreignSigner();
    const logs = [0, 1, 2].map((i) => ({
      type: 'NEW_TRANSACTION',
      data: {
        transaction: { id: i, postings: [posting('world', 'users:f', 10 + i)], metadata: {}, timestamp: '2026-01-01T00:00:00.000Z', reverted: false },
        accountMetadata: {},
      },
    }));
    const text = signedExport(logs, signer);
    const path = (ledger: string, key?: string) => `/api/ledger/v2/${ledger}/logs/import${key ? `?publicKey=${key}` : ''}`;
    const post = (ledger: string, key?: string) =>
      api('POST', path(ledger, key), { rawBody: text, headers: { 'Content-Type': 'application/octet-stream' } });

    const target = await newLedger('logs-foreign');
    const platformOnly = await post(target);
    expect(platformOnly.body).toMatchObject({
      errorCode: 'IMPORT',
      errorDetails: { logId: 2 },
      errorMessage: expect.stringContaining('not a trusted key'),
    });
    const wrong = await post(target, foreignSigner().publicKey);
    expect(wrong.status).toBe(400);
    expect(wrong.body).toMatchObject({ errorCode: 'IMPORT', errorDetails: { logId: 2 }, errorMessage: expect.stringContaining('not a trusted key') });
    const malformed = await post(target, 'abc');
    expect(malformed.status).toBe(400);
    expect(malformed.body).toMatchObject({ errorCode: 'VALIDATION', errorMessage: expect.stringContaining('publicKey') });
    expect((await api('GET', `/api/ledger/v2/${target}/logs/chain`)).body.data).toMatchObject({ logs: 0 });

    expect((await post(target, `${foreignSigner().publicKey},${signer.publicKey}`)).status).toBe(204);
    const balance = await api('GET', `/api/ledger/v2/${target}/accounts/users:f?expand=volumes`);
    expect(balance.body.data.volumes['USD/2']).toMatchObject({ balance: 33 });
    // Imported, the logs are hashed and signed again by this platform: its own export verifies here.
    await hashedUpTo(target);
    expect(await verify(target)).toMatchObject({ valid: true, logs: 3 });
    const again = await newLedger('logs-foreign-again');
    expect((await importLogs(again, (await exportLogs(target)).text)).status).toBe(204);
  });

  it('keeps exports signed before a key rotation importable, and their ledger verifiable', async () => {
    const before = await api('GET', '/api/ledger/v2/_/log-signing-keys');
    const oldKey = before.body.data[0].keyId;
    const newKey = await rotateLogSigningKey(db);
    const after = await api('GET', '/api/ledger/v2/_/log-signing-keys');
    expect(after.body.data.map((k: any) => [k.keyId, k.current])).toEqual(
      expect.arrayContaining([
        [newKey, true],
        [oldKey, false],
      ]),
    );
    expect(after.body.data[0].keyId).toBe(newKey);

    // Processes pick the new key up within seconds: a fresh export's tail is then signed by it.
    const tailKey = async () => {
      const lines = (await exportLogs(source)).text.trim().split('\n');
      return (parseJson(lines[lines.length - 1]) as any).checkpoint.keyId;
    };
    await pollUntil(tailKey, (key) => key === newKey, { what: 'exports signed by the new key' });

    // The export taken before the rotation (checkpoints by the old key) still imports; the old checkpoint still verifies.
    const target = await newLedger('logs-rotated');
    expect((await importLogs(target, exported)).status).toBe(204);
    expect(await verify(source)).toMatchObject({ valid: true, checkpoints: 1 });

    // New checkpoints are signed by the new key, once the worker's hasher (another process, with its own key cache)
    // has read the key list again: a ledger hashed meanwhile may still carry the old key's checkpoint.
    const fresh = await pollUntil(
      async () => {
        const ledger = await ledgerOf('logs-new-key', 100);
        const line99 = parseJson((await exportLogs(ledger)).text.trim().split('\n')[99]) as any;
        return { ledger, keyId: line99.checkpoint.keyId as string };
      },
      (found) => found.keyId === newKey,
      { what: 'a checkpoint signed by the new key', intervalMs: 1000 },
    );
    expect(await verify(fresh.ledger)).toMatchObject({ valid: true, checkpoints: 1 });
  });
});

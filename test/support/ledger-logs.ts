import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { parseJson } from '../../lib/json';
import { api, apiUrl, getToken } from './http';
import { isDefined, pollUntil } from './eventually';

/** Waits until the hasher has hashed every log of the ledger (a condition, not a timing: it fails only after 30 s). */
export async function hashedUpTo(ledger: string): Promise<{ logs: number; lastHashedLogId: number; lag: number }> {
  return pollUntil(
    async () => {
      const res = await api('GET', `/api/ledger/v2/${ledger}/logs/chain`);
      return res.status === 200 && res.body.data.lag === 0 ? res.body.data : undefined;
    },
    isDefined,
    { timeoutMs: 30_000, what: `the hasher to catch up on ${ledger}` },
  );
}

/** The export's raw text (newline-delimited JSON). */
export async function exportLogs(ledger: string): Promise<{ status: number; type: string; text: string }> {
  const res = await fetch(`${apiUrl()}/api/ledger/v2/${ledger}/logs/export`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${await getToken()}` },
  });
  return { status: res.status, type: res.headers.get('content-type') ?? '', text: await res.text() };
}

export function importLogs(ledger: string, text: string, contentType = 'application/octet-stream') {
  return api('POST', `/api/ledger/v2/${ledger}/logs/import`, { rawBody: text, headers: { 'Content-Type': contentType } });
}

/** Everything an import must rebuild: transactions (without insertion dates), volumes, account metadata. */
export async function ledgerState(ledger: string) {
  const all = async (path: string) => {
    const items: any[] = [];
    let res = await api('GET', `/api/ledger/v2/${ledger}/${path}?pageSize=1000`);
    for (;;) {
      expect(res.status).toBe(200);
      items.push(...res.body.cursor.data);
      if (!res.body.cursor.hasMore) return items;
      res = await api('GET', `/api/ledger/v2/${ledger}/${path}?cursor=${res.body.cursor.next}`);
    }
  };
  const transactions = (await all('transactions')).map(({ insertedAt: _i, revertedAt: _r, ...tx }) => tx);
  const accounts = await all('accounts');
  const volumes = await all('volumes');
  return { transactions, accounts, volumes };
}

const run = promisify(execFile);

/** Runs `npm run ledger:verify -- <ledger>` against the test database: its exit code and its JSON report. */
export async function verifyScript(ledger: string): Promise<{ code: number; report: any }> {
  try {
    const { stdout } = await run(process.execPath, ['--import', 'tsx', 'scripts/ledger-verify.ts', ledger], {
      env: { ...process.env, DATABASE_URL: process.env.TEST_DATABASE_URL },
    });
    return { code: 0, report: parseJson(stdout) };
  } catch (error) {
    const failed = error as { code: number; stdout: string };
    return { code: failed.code, report: parseJson(failed.stdout) };
  }
}

import type { Db } from '../../../db/knex';
import { parseJson } from '../../../lib/json';
import { api } from '../../support/http';
import { isDefined, pollUntil } from '../../support/eventually';
import { installSimulated, simulatedDirectory, suffix, testDb } from '../../support/payments';

const users = '/api/payments/v3/payment-service-users';

/**
 * A consent link is decided exactly once (areas/payments/open-banking/psu-links.ts, decideConsent): concurrent decisions on one link,
 * approvals and refusals mixed, give one 204 and 409 for all the others, and the attempt ends as the winner decided.
 */
describe('open-banking consent decisions', () => {
  let db: Db;
  let connectorID: string;
  beforeAll(async () => {
    db = testDb();
    connectorID = await installSimulated(
      simulatedDirectory({
        'psu-accounts.json': [
          { reference: 'checking', type: 'INTERNAL', name: 'Checking', defaultAsset: 'EUR/2', createdAt: '2024-01-01T00:00:00Z' },
        ],
        'psu-balances.json': [],
        'psu-payments.json': [],
      }),
      '1h',
    );
  });
  afterAll(async () => db.destroy());

  async function newLink(): Promise<{ psuID: string; attemptID: string; link: string }> {
    const psuID = (await api('POST', users, { body: { name: `psu-${suffix()}`, contactDetails: { email: 'end.user@example.com' } } })).body
      .data as string;
    expect((await api('POST', `${users}/${psuID}/connectors/${connectorID}/forward`)).status).toBe(204);
    const created = await api('POST', `${users}/${psuID}/connectors/${connectorID}/create-link`, {
      body: { clientRedirectURL: 'https://app.example/back' },
    });
    expect(created.status).toBe(201);
    return { psuID, ...created.body };
  }
  const decide = (link: string, decision: 'approve' | 'reject') => fetch(`${link}&decision=${decision}&noRedirect=true`, { redirect: 'manual' });
  const attemptOf = async (psuID: string, attemptID: string) =>
    (await api('GET', `${users}/${psuID}/connectors/${connectorID}/link-attempts/${attemptID}`)).body;
  const connectionsOf = async (psuID: string) => (await api('GET', `${users}/${psuID}/connectors/${connectorID}/connections`)).body.cursor.data;

  // Two rounds, so that the winner is (most likely) approve once and reject once; each round checks its own winner.
  it.each([1, 2])("ten concurrent decisions mixing approve and reject: one 204, nine 409, the winner's outcome stored (round %i)", async () => {
    const { psuID, attemptID, link } = await newLink();
    const decisions = Array.from({ length: 10 }, (_, i) => (i % 2 === 0 ? 'approve' : 'reject') as 'approve' | 'reject');
    const answers = await Promise.all(
      decisions.map(async (decision) => {
        const response = await decide(link, decision);
        const text = await response.text();
        return { decision, status: response.status, body: text ? parseJson(text) : undefined };
      }),
    );
    const winners = answers.filter((a) => a.status === 204);
    const losers = answers.filter((a) => a.status !== 204);
    expect(winners).toHaveLength(1);
    expect(losers.map((a) => a.status)).toEqual(Array(9).fill(409));
    for (const loser of losers)
      expect(loser.body).toMatchObject({ errorCode: 'CONFLICT', errorMessage: expect.stringContaining('a consent link works once') });
    const winner = winners[0].decision;

    const row = await db('payments_psu_link_attempts').where({ id: attemptID }).first();
    expect(row.decision).toBe(winner);
    const expected = winner === 'approve' ? 'completed' : 'exited';
    const done = await pollUntil(
      async () => {
        const attempt = await attemptOf(psuID, attemptID);
        return attempt.status !== 'pending' ? attempt : undefined;
      },
      isDefined,
      { timeoutMs: 30_000, what: `link attempt ${attemptID} decided` },
    );
    expect(done.status).toBe(expected);
    expect(done.error).toBe(winner === 'approve' ? null : 'the end user refused the consent');
    expect(await connectionsOf(psuID)).toHaveLength(winner === 'approve' ? 1 : 0);
  });

  it('a second decision right after the first is 409 even while the completion runs, and so is the page', async () => {
    const { psuID, attemptID, link } = await newLink();
    // The page's wait for the completion is not awaited here: the second decision goes out at once.
    const first = decide(link, 'reject');
    await pollUntil(async () => ((await db('payments_psu_link_attempts').where({ id: attemptID }).first()).decision ? true : undefined), isDefined, {
      timeoutMs: 30_000,
      what: 'the first decision recorded',
    });
    const second = await decide(link, 'approve');
    expect(second.status).toBe(409);
    const page = await fetch(link);
    expect(page.status).toBe(409);
    expect((await first).status).toBe(204);
    await pollUntil(async () => ((await attemptOf(psuID, attemptID)).status === 'exited' ? true : undefined), isDefined, {
      timeoutMs: 30_000,
      what: 'attempt exited',
    });
    expect(await connectionsOf(psuID)).toEqual([]);
  });
});

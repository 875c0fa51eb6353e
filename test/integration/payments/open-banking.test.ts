import fs from 'node:fs';
import path from 'node:path';
import type { Db } from '../../../db/knex';
import { parseJson } from '../../../lib/json';
import { api, apiUrl } from '../../support/http';
import { isDefined, pollUntil } from '../../support/eventually';
import { installSimulated, paymentsOf, simulatedDirectory, suffix, testDb } from '../../support/payments';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const users = '/api/payments/v3/payment-service-users';
const redirectURL = 'https://app.example/after-consent?from=test';

/** The simulated bank every consenting end user of these tests reaches. */
const bank = {
  'psu-accounts.json': [
    { reference: 'checking', type: 'INTERNAL', name: 'Checking', defaultAsset: 'EUR/2', createdAt: '2024-01-01T00:00:00Z' },
    { reference: 'savings', type: 'INTERNAL', name: 'Savings', defaultAsset: 'EUR/2', createdAt: '2024-01-02T00:00:00Z' },
  ],
  'psu-balances.json': [{ accountReference: 'checking', asset: 'EUR/2', amount: 123456 }],
  'psu-payments.json': [
    {
      reference: 'salary',
      type: 'PAY-IN',
      status: 'SUCCEEDED',
      amount: 250000,
      asset: 'EUR/2',
      createdAt: '2024-02-01T00:00:00Z',
      destinationAccountReference: 'checking',
    },
  ],
};

/** Opens a consent link the way an end user's browser does: no token, redirects not followed. */
const openLink = (link: string, decision?: 'approve' | 'reject', extra = '') =>
  fetch(`${link}${decision ? `&decision=${decision}` : ''}${extra}`, { redirect: 'manual' });

describe('payments v3 open banking on the simulated connector', () => {
  let db: Db;
  let dir: string;
  let connectorID: string;
  beforeAll(async () => {
    db = testDb();
    dir = simulatedDirectory(bank);
    connectorID = await installSimulated(dir, '1h');
  });
  afterAll(async () => db.destroy());

  const newUser = async () =>
    (await api('POST', users, { body: { name: `psu-${suffix()}`, contactDetails: { email: 'end.user@example.com' } } })).body.data as string;
  const forward = (psuID: string, connector = connectorID) => api('POST', `${users}/${psuID}/connectors/${connector}/forward`);
  const createLink = (psuID: string, body: unknown = { clientRedirectURL: redirectURL, applicationName: 'Budget app' }) =>
    api('POST', `${users}/${psuID}/connectors/${connectorID}/create-link`, { body });
  const attempt = async (psuID: string, attemptID: string) =>
    (await api('GET', `${users}/${psuID}/connectors/${connectorID}/link-attempts/${attemptID}`)).body;
  const connections = async (psuID: string) => (await api('GET', `${users}/${psuID}/connectors/${connectorID}/connections`)).body.cursor.data;
  const taskDone = (taskID: string) =>
    pollUntil(
      async () => {
        const task = (await api('GET', `/api/payments/v3/tasks/${taskID}`)).body.data;
        return task.status !== 'PROCESSING' ? task : undefined;
      },
      isDefined,
      { timeoutMs: 30_000, what: `task ${taskID}` },
    );
  const accountsOf = async (connectionID: string) =>
    (await db('payments_accounts').where({ open_banking_connection_id: connectionID }).orderBy('reference')) as any[];
  const paymentsOfConnection = async (connectionID: string) =>
    (await paymentsOf(connectorID)).filter((p) => p.reference.startsWith(`${connectionID}/`));

  /**
   * The consent page waits at most 15 s for the link's completion workflow, then answers anyway: on a loaded machine the
   * attempt may still be pending when the redirect comes back, so wait for it to be decided.
   */
  const completed = (psuID: string, attemptID: string) =>
    pollUntil(async () => ((await attempt(psuID, attemptID)).status === 'completed' ? true : undefined), isDefined, {
      timeoutMs: 30_000,
      what: `link attempt ${attemptID} completed`,
    });

  /** A forwarded user with an approved connection. */
  async function connectedUser(): Promise<{ psuID: string; connectionID: string }> {
    const psuID = await newUser();
    expect((await forward(psuID)).status).toBe(204);
    const { attemptID, link } = (await createLink(psuID)).body;
    expect((await openLink(link, 'approve')).status).toBe(307);
    await completed(psuID, attemptID);
    const [connection] = await connections(psuID);
    return { psuID, connectionID: connection.connectionID };
  }

  it('forward, link, consent over HTTP, connection with its accounts, balances and payments visible like other connector data', async () => {
    const psuID = await newUser();
    const forwarded = await forward(psuID);
    expect(forwarded.status).toBe(204);
    const known = fs
      .readdirSync(path.join(dir, 'open-banking', 'users'))
      .map((f) => fs.readFileSync(path.join(dir, 'open-banking', 'users', f), 'utf8'));
    expect(known.some((text) => text.includes(psuID) && text.includes('end.user@example.com'))).toBe(true);
    expect((await forward(psuID)).status).toBe(204); // again: nothing more to do

    const created = await createLink(psuID);
    expect(created.status).toBe(201);
    expect(created.body).toEqual({ attemptID: expect.stringMatching(UUID), link: expect.any(String) });
    const { attemptID, link } = created.body;
    expect(
      link.startsWith(`${apiUrl()}/api/payments/v3/connectors/open-banking/${encodeURIComponent(connectorID)}/redirect?state=${attemptID}.`),
    ).toBe(true);
    expect(await attempt(psuID, attemptID)).toEqual({
      id: attemptID,
      psuID,
      connectorID,
      status: 'pending',
      clientRedirectURL: redirectURL,
      createdAt: expect.any(String),
      error: null,
    });

    const page = await openLink(link);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/text\/html/);
    expect(page.headers.get('referrer-policy')).toBe('no-referrer');
    expect(await page.text()).toContain('Budget app asks to read your accounts');

    const decided = await openLink(link, 'approve');
    expect(decided.status).toBe(307);
    expect(decided.headers.get('location')).toBe(redirectURL);
    const done = await pollUntil(
      async () => ((await attempt(psuID, attemptID)).status === 'completed' ? attempt(psuID, attemptID) : undefined),
      isDefined,
    );
    expect(done).toMatchObject({ status: 'completed', error: null });

    const [connection, ...others] = await connections(psuID);
    expect(others).toEqual([]);
    expect(connection).toEqual({
      connectionID: `conn-${attemptID}`,
      connectorID,
      status: 'ACTIVE',
      error: null,
      metadata: {},
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
      dataUpdatedAt: expect.any(String),
    });
    expect((await api('GET', `${users}/${psuID}/connections`)).body.cursor.data).toEqual([connection]);

    // Filtered by connector: other tests of the same database create thousands of accounts.
    const byConnector = encodeURIComponent(`{"$match":{"connectorID":"${connectorID}"}}`);
    const accounts = (await api('GET', `/api/payments/v3/accounts?pageSize=1000&query=${byConnector}`)).body.cursor.data.filter(
      (a: any) => a.openBankingConnectionID === connection.connectionID,
    );
    expect(accounts.map((a: any) => [a.reference, a.name, a.psuID, a.connectorID]).sort()).toEqual([
      [`${connection.connectionID}/checking`, 'Checking', psuID, connectorID],
      [`${connection.connectionID}/savings`, 'Savings', psuID, connectorID],
    ]);
    const checking = accounts.find((a: any) => a.name === 'Checking');
    const balances = (await api('GET', `/api/payments/v3/accounts/${encodeURIComponent(checking.id)}/balances`)).body.cursor.data;
    expect(balances).toEqual([expect.objectContaining({ asset: 'EUR/2', balance: 123456 })]);
    const [salary, ...more] = await paymentsOfConnection(connection.connectionID);
    expect(more).toEqual([]);
    expect(salary).toMatchObject({
      reference: `${connection.connectionID}/salary`,
      type: 'PAY-IN',
      status: 'SUCCEEDED',
      amount: 250000,
      destinationAccountID: checking.id,
    });
    expect((await api('GET', `${users}/${psuID}/connectors/${connectorID}/link-attempts`)).body.cursor.data.map((a: any) => a.id)).toEqual([
      attemptID,
    ]);
  });

  it('reject marks the attempt exited with a reason and creates nothing; noRedirect answers 204', async () => {
    const psuID = await newUser();
    await forward(psuID);
    const { attemptID, link } = (await createLink(psuID)).body;
    const res = await openLink(link, 'reject', '&noRedirect=true');
    expect(res.status).toBe(204);
    const exited = await pollUntil(
      async () => ((await attempt(psuID, attemptID)).status === 'exited' ? attempt(psuID, attemptID) : undefined),
      isDefined,
    );
    expect(exited.error).toBe('the end user refused the consent');
    expect(await connections(psuID)).toEqual([]);
  });

  it('a provider failure at completion exits the attempt with its reason and creates nothing', async () => {
    const psuID = await newUser();
    await forward(psuID);
    // The simulated bank forgets the user behind the platform's back.
    const usersDir = path.join(dir, 'open-banking', 'users');
    for (const f of fs.readdirSync(usersDir)) if (fs.readFileSync(path.join(usersDir, f), 'utf8').includes(psuID)) fs.rmSync(path.join(usersDir, f));
    const { attemptID, link } = (await createLink(psuID)).body;
    expect((await openLink(link, 'approve')).status).toBe(307);
    const exited = await pollUntil(
      async () => ((await attempt(psuID, attemptID)).status === 'exited' ? attempt(psuID, attemptID) : undefined),
      isDefined,
    );
    expect(exited.error).toBe(`user ${psuID} is not known to the simulated bank`);
    expect(await connections(psuID)).toEqual([]);
  });

  it('a consent link works once; a wrong token or attempt is refused and changes nothing', async () => {
    const psuID = await newUser();
    await forward(psuID);
    const { attemptID, link } = (await createLink(psuID)).body;
    const forged = link.replace(/\.[^.]+$/, '.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA');
    const bad = await openLink(forged, 'approve');
    expect(bad.status).toBe(403);
    expect(parseJson(await bad.text())).toEqual({ errorCode: 'FORBIDDEN', errorMessage: 'this consent link is not valid' });
    expect((await attempt(psuID, attemptID)).status).toBe('pending');
    expect((await openLink(link.replace(/state=[^&]+/, 'state=nonsense'), 'approve')).status).toBe(400);
    expect((await openLink(link.replace(attemptID, '6f1c1d2e-6b7a-4c1e-9f3e-000000000000'), 'approve')).status).toBe(404);
    expect((await openLink(link, 'approve')).status).toBe(307);
    // Decided, the link is spent (also while the completion runs: see consent-decisions.test.ts).
    await completed(psuID, attemptID);
    const reused = await openLink(link, 'reject');
    expect(reused.status).toBe(409);
    expect(parseJson(await reused.text())).toMatchObject({ errorCode: 'CONFLICT' });
    expect((await attempt(psuID, attemptID)).status).toBe('completed');
    expect(await connections(psuID)).toHaveLength(1);
  });

  it('update link renews an existing connection through a new consent', async () => {
    const { psuID, connectionID } = await connectedUser();
    const before = (await connections(psuID))[0];
    const res = await api('POST', `${users}/${psuID}/connectors/${connectorID}/connections/${connectionID}/update-link`, {
      body: { clientRedirectURL: 'https://app.example/renewed' },
    });
    expect(res.status).toBe(201);
    expect((await openLink(res.body.link, 'approve')).headers.get('location')).toBe('https://app.example/renewed');
    const renewed = await pollUntil(
      async () => ((await attempt(psuID, res.body.attemptID)).status === 'completed' ? connections(psuID) : undefined),
      isDefined,
    );
    expect(renewed).toHaveLength(1);
    expect(renewed[0].connectionID).toBe(connectionID);
    expect(new Date(renewed[0].updatedAt).getTime()).toBeGreaterThan(new Date(before.updatedAt).getTime());
    expect(await accountsOf(connectionID)).toHaveLength(2);
    expect(
      (await api('POST', `${users}/${psuID}/connectors/${connectorID}/connections/nope/update-link`, { body: { clientRedirectURL: redirectURL } }))
        .status,
    ).toBe(404);
  });

  it('delete connection (202 task) removes the connection, its accounts and its payments', async () => {
    const { psuID, connectionID } = await connectedUser();
    expect(await accountsOf(connectionID)).toHaveLength(2);
    expect(await paymentsOfConnection(connectionID)).toHaveLength(1);
    const res = await api('DELETE', `${users}/${psuID}/connectors/${connectorID}/connections/${connectionID}`);
    expect(res.status).toBe(202);
    expect(await taskDone(res.body.data.taskID)).toMatchObject({ status: 'SUCCEEDED', connectorID });
    expect(await connections(psuID)).toEqual([]);
    expect(await accountsOf(connectionID)).toEqual([]);
    expect(await paymentsOfConnection(connectionID)).toEqual([]);
    expect((await api('DELETE', `${users}/${psuID}/connectors/${connectorID}/connections/${connectionID}`)).status).toBe(404);
  });

  it('delete the user from the connector (202 task): connections, attempts and registration go, the user stays', async () => {
    const { psuID, connectionID } = await connectedUser();
    const res = await api('DELETE', `${users}/${psuID}/connectors/${connectorID}`);
    expect(res.status).toBe(202);
    expect(await taskDone(res.body.data.taskID)).toMatchObject({ status: 'SUCCEEDED' });
    expect(await connections(psuID)).toEqual([]);
    expect(await accountsOf(connectionID)).toEqual([]);
    expect((await api('GET', `${users}/${psuID}/connectors/${connectorID}/link-attempts`)).body.cursor.data).toEqual([]);
    expect((await api('GET', `${users}/${psuID}`)).status).toBe(200);
    // No longer registered: a link needs a new forward, and a second removal has nothing to remove.
    expect((await createLink(psuID)).status).toBe(400);
    expect((await api('DELETE', `${users}/${psuID}/connectors/${connectorID}`)).status).toBe(404);
  });

  it("deleting the user (Formance's PSU delete) first removes it from its connectors, with its connections and their accounts", async () => {
    const { psuID, connectionID } = await connectedUser();
    const userFiles = () =>
      fs
        .readdirSync(path.join(dir, 'open-banking', 'users'))
        .filter((f) => fs.readFileSync(path.join(dir, 'open-banking', 'users', f), 'utf8').includes(psuID));
    expect(userFiles()).toHaveLength(1);
    const res = await api('DELETE', `${users}/${psuID}`);
    expect(res.status).toBe(202);
    expect(await taskDone(res.body.data.taskID)).toMatchObject({ status: 'SUCCEEDED' });
    expect((await api('GET', `${users}/${psuID}`)).status).toBe(404);
    expect(await accountsOf(connectionID)).toEqual([]);
    expect(await db('payments_psu_connections').where({ psu_id: psuID })).toEqual([]);
    expect(userFiles()).toEqual([]);
  });

  it('bad input: unknown user, connector or attempt, a user not forwarded, a bad body: clear 4xx and nothing written', async () => {
    const psuID = await newUser();
    const unknownUser = '6f1c1d2e-6b7a-4c1e-9f3e-000000000000';
    expect((await forward(unknownUser)).status).toBe(404);
    expect((await forward(psuID, 'nope')).status).toBe(404);
    const notForwarded = await createLink(psuID);
    expect(notForwarded.status).toBe(400);
    expect(notForwarded.body.errorMessage).toMatch(/is not registered at connector .*: forward it first/);
    await forward(psuID);
    expect((await createLink(psuID, { clientRedirectURL: 'javascript:alert(1)' })).status).toBe(400);
    expect((await createLink(psuID, { applicationName: 'x' })).status).toBe(400);
    expect((await createLink(psuID, { clientRedirectURL: redirectURL, colour: 'red' })).status).toBe(400);
    expect((await api('GET', `${users}/${psuID}/connectors/${connectorID}/link-attempts/6f1c1d2e-6b7a-4c1e-9f3e-000000000000`)).status).toBe(404);
    expect((await api('GET', `${users}/${unknownUser}/connections`)).status).toBe(404);
    expect(await db('payments_psu_link_attempts').where({ psu_id: psuID })).toEqual([]);
  });

  it('a connector without the capability answers 400 naming it, before writing anything', async () => {
    const generic = await api('POST', '/api/payments/v3/connectors/install/generic', {
      body: { name: `generic-${suffix()}`, endpoint: 'http://127.0.0.1:9', pollingPeriod: '1h' },
    });
    expect(generic.status).toBe(202);
    const genericID = generic.body.data;
    try {
      const psuID = await newUser();
      const cases: Array<[string, string, unknown, string]> = [
        ['POST', 'forward', undefined, 'CREATE_USER'],
        ['POST', 'create-link', { clientRedirectURL: redirectURL }, 'CREATE_USER_LINK'],
        ['POST', 'connections/c1/update-link', { clientRedirectURL: redirectURL }, 'UPDATE_USER_LINK'],
        ['DELETE', 'connections/c1', undefined, 'DELETE_USER_CONNECTION'],
        ['DELETE', '', undefined, 'DELETE_USER'],
      ];
      for (const [method, suffixPath, body, capability] of cases) {
        const res = await api(
          method,
          `${users}/${psuID}/connectors/${genericID}${suffixPath ? `/${suffixPath}` : ''}`,
          body === undefined ? {} : { body },
        );
        expect([suffixPath, res.status, res.body]).toEqual([
          suffixPath,
          400,
          { errorCode: 'VALIDATION', errorMessage: `connector ${genericID} (generic) does not have the capability ${capability}` },
        ]);
      }
      expect(await db('payments_psu_connectors').where({ psu_id: psuID })).toEqual([]);
    } finally {
      await api('DELETE', `/api/payments/v3/connectors/${genericID}`);
    }
  });
});

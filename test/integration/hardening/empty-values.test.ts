import { routesWithBuiltInPlugins } from '../../support/routes';
import { api } from '../../support/http';
import { newLedger, postTransaction, posting } from '../../support/ledger';
import { createWorkflow, runInstance } from '../../support/orchestration';
import { credit, debit, mainBalance, newWallet, unique } from '../../support/wallets';

const allRoutes = routesWithBuiltInPlugins();

/**
 * An empty value is an absent one: a query parameter sent empty (`name=`) on any route, and the balance names of wallet
 * movements. Formance's CLI (fctl) sends the flags it was not given that way (test/integration/hardening/fctl-requests).
 */
describe('empty values mean absent', () => {
  it('cursor= (and pageSize=) on a ledger volumes list is the first page', async () => {
    const ledger = await newLedger('empty');
    for (const to of ['users:1', 'users:2', 'users:3'])
      expect((await postTransaction(ledger, { postings: [posting('world', to, 10)] })).status).toBe(200);
    const plain = await api('GET', `/api/ledger/v2/${ledger}/volumes?pageSize=2`);
    const empty = await api('GET', `/api/ledger/v2/${ledger}/volumes?cursor=&pageSize=2`);
    expect(empty.status).toBe(200);
    expect(empty.body.cursor.data).toEqual(plain.body.cursor.data);
    expect(empty.body.cursor.data.map((v: { account: string }) => v.account)).toEqual(['users:1', 'users:2']);
    expect(empty.body.cursor.hasMore).toBe(true);
    // The next page's cursor still pages, and every parameter empty is the default list.
    const next = await api('GET', `/api/ledger/v2/${ledger}/volumes?cursor=${empty.body.cursor.next}`);
    expect(next.body.cursor.data.map((v: { account: string }) => v.account)).toEqual(['users:3', 'world']);
    // Go's zero time, how the Go SDK sends an unset time, is absent too (here it would bound the window to year 1).
    const defaults = await api('GET', `/api/ledger/v2/${ledger}/volumes?cursor=&pageSize=&address=&endTime=0001-01-01T00:00:00Z`);
    expect(defaults.status).toBe(200);
    expect(defaults.body.cursor).toMatchObject({ pageSize: 15, hasMore: false });
    expect(defaults.body.cursor.data).toHaveLength(4);
  });

  it("workflowID= on an orchestration instance list is every workflow's instances", async () => {
    const ids: string[] = [];
    for (let i = 0; i < 2; i += 1) {
      const run = await runInstance(await createWorkflow([{ noop: {} }]), {}, true);
      expect(run.body.data.terminated).toBe(true);
      ids.push(run.body.data.id);
    }
    const listed = await api('GET', '/api/orchestration/v2/instances?workflowID=&pageSize=1000');
    expect(listed.status).toBe(200);
    expect(listed.body.cursor.data.map((i: { id: string }) => i.id)).toEqual(expect.arrayContaining(ids));
    // `running=false`, which fctl sends with it, is no filter either (Formance): terminated instances are listed.
    const fctl = await api('GET', '/api/orchestration/instances?running=false&workflowID=');
    expect(fctl.status).toBe(200);
    expect(fctl.body.data.slice(0, 2).map((i: { id: string }) => i.id)).toEqual([ids[1], ids[0]]);
    // A workflowID that names nothing still lists nothing: only the empty value is absent.
    expect((await api('GET', '/api/orchestration/v2/instances?workflowID=nope')).body.cursor.data).toEqual([]);
  });

  it('"balance": "" on a wallet credit is main, and [""] on a debit draws from main', async () => {
    const wallet = await newWallet();
    expect((await credit(wallet, 100, { balance: '' })).status).toBe(204);
    expect(await mainBalance(wallet)).toBe(100);
    expect((await debit(wallet, 30, { balances: [''] })).status).toBe(204);
    expect(await mainBalance(wallet)).toBe(70);
    // A WALLET subject's empty balance is main too.
    const other = await newWallet();
    expect((await credit(other, 5, { sources: [{ type: 'WALLET', identifier: wallet, balance: '' }] })).status).toBe(204);
    expect(await mainBalance(wallet)).toBe(65);
    // A name that is not empty must still exist.
    expect((await credit(wallet, 1, { balance: 'nope' })).status).toBe(400);
  });

  it('a map filter keeps its empty value: metadata[key]= matches the empty value', async () => {
    const key = `k${unique()}`;
    const blank = await newWallet(`w-${unique()}`, { [key]: '' });
    await newWallet(`w-${unique()}`, { [key]: 'set' });
    const listed = await api('GET', `/api/wallets/wallets?metadata[${key}]=`);
    expect(listed.status).toBe(200);
    expect(listed.body.cursor.data.map((w: { id: string }) => w.id)).toEqual([blank]);
  });
});

/** The items of a list answer, whatever its envelope (`cursor.data`, v1's `data`); undefined for an answer that is no list. */
const itemsOf = (body: any): unknown[] | undefined =>
  Array.isArray(body?.cursor?.data) ? body.cursor.data : Array.isArray(body?.data) ? body.data : undefined;

/**
 * The class, not the cases: every GET route with query parameters whose path names no resource but a ledger (45 of
 * them: every list of every area, v1 and v2), each declared parameter sent empty at once, answers as the request
 * without them, and lists what it lists without them. The middleware that makes `name=` absent sits in front of every
 * route's validation (api/middleware/validate.ts), so a route added later is covered by its place in the table.
 */
describe('empty values mean absent on every list route', () => {
  const routes = allRoutes
    .filter((route) => route.spec.method === 'get' && route.schemas.query)
    .filter((route) => [...route.spec.path.matchAll(/\{([^}]+)\}/g)].every((match) => match[1] === 'ledger'))
    .map((route) => ({
      path: route.spec.path,
      // Map filters (`metadata[key]`) keep an empty value on purpose (tested above): only plain names are sent empty.
      names: Object.keys((route.schemas.query as { properties?: Record<string, unknown> }).properties ?? {}).filter((name) => !name.includes('[')),
    }))
    .filter((route) => route.names.length > 0);
  let ledger: string;
  beforeAll(async () => {
    ledger = await newLedger('empty-all');
    for (const to of ['users:1', 'users:2']) expect((await postTransaction(ledger, { postings: [posting('world', to, 10)] })).status).toBe(200);
  });

  it('covers the lists of every area', () => {
    const areas = new Set(routes.map((route) => route.path.split('/')[2]));
    expect([...areas].sort()).toEqual(['auth', 'ledger', 'orchestration', 'payments', 'reconciliation', 'wallets', 'webhooks']);
    expect(routes.length).toBeGreaterThanOrEqual(40);
  });

  it.each(routes.map((route) => [route.path, route.names] as const))('GET %s with every parameter empty', async (template, names) => {
    const path = template.replace('{ledger}', ledger);
    const plain = await api('GET', path);
    expect(plain.status).toBe(200);
    const empty = await api('GET', `${path}?${names.map((name) => `${name}=`).join('&')}`);
    expect([empty.status, empty.status === 200 ? '' : empty.text]).toEqual([200, '']);
    const [before, after] = [itemsOf(plain.body), itemsOf(empty.body)];
    expect(after === undefined).toBe(before === undefined);
    // Not emptied by an empty filter (other tests' rows may come and go between the two reads, never all of them).
    if (before && before.length > 0) expect(after!.length).toBeGreaterThan(0);
  });
});

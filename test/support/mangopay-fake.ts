import http from 'node:http';
import type Mangopay from 'mangopay2-nodejs-sdk';

/**
 * A fake Mangopay API on 127.0.0.1 for the Mangopay connector's tests. It validates what Mangopay's API reference
 * requires (https://mangopay.com/api-references): the OAuth 2.0 client-credentials exchange (Basic client id and API
 * key, `grant_type=client_credentials`), a valid Bearer token and the client id in every path, `page` and `per_page`
 * (1..100) on every list, an `Idempotency-Key` of 16 to 36 letters, digits and dashes on every write (the same key
 * answers the first answer again; with another body it is 409), the fields a transfer, payout or hook requires, and
 * a wallet's owner as `AuthorId`. Its answers are typed with the official SDK's TypeScript typings
 * (mangopay2-nodejs-sdk), Mangopay's documented shapes, so a field the connector reads that the typings lack fails to
 * compile here. It keeps state (users, wallets, bank accounts, transactions, hooks) so fetches and writes can be
 * followed across calls.
 */

type Wallet = Mangopay.wallet.WalletData;
type User = Mangopay.user.UserNaturalData;
type BankAccount = Mangopay.bankAccount.IBANData;
type Transfer = Mangopay.transfer.TransferData;
type PayOut = Mangopay.payOut.PayOutData;
type PayIn = Mangopay.payIn.BasePayInData & Mangopay.transaction.TransactionData;
type Transaction = Mangopay.transaction.TransactionData;
type Hook = Mangopay.hook.HookData;

export interface RecordedRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: http.IncomingHttpHeaders;
  body: any;
  status: number;
}

export interface MangopayFake {
  url: string;
  clientID: string;
  apiKey: string;
  requests: RecordedRequest[];
  hooks: Hook[];
  /** The time (Unix seconds) the next created object gets; tests move it to place objects in the same second or later. */
  clock: { now: number };
  addUser(firstName: string): User;
  addWallet(owner: string, currency: string, amount: number, description: string): Wallet;
  addBankAccount(owner: string, ownerName: string): BankAccount;
  /** A pay-in credited to a wallet (Mangopay lists it in that wallet's transactions). */
  addPayIn(walletID: string, amount: number, status?: 'CREATED' | 'SUCCEEDED' | 'FAILED'): PayIn;
  /** Settles a payout or pay-in (or fails it), as Mangopay does later, at the clock's time, and returns it. */
  settle(id: string, status: 'SUCCEEDED' | 'FAILED'): Transaction;
  /**
   * The path and query Mangopay would GET for an event: the registered hook's URL (its path: the test platform's API
   * is reached through the test client) with `?EventType&RessourceId&Date`.
   */
  hookCall(eventType: string, resourceID: string, date?: number): string;
  close(): Promise<void>;
}

const IDEMPOTENCY = /^[A-Za-z0-9-]{16,36}$/;

export function startMangopayFake(options: { clientID?: string; apiKey?: string } = {}): Promise<MangopayFake> {
  const clientID = options.clientID ?? 'fake-marketplace';
  const apiKey = options.apiKey ?? 'fake-api-key';
  const requests: RecordedRequest[] = [];
  const tokens = new Set<string>();
  const users: User[] = [];
  const wallets: Wallet[] = [];
  const banks: BankAccount[] = [];
  const transactions: Array<Transaction | Transfer | PayOut | PayIn> = [];
  const hooks: Hook[] = [];
  const replies = new Map<string, { body: string; answer: string; status: number }>();
  const clock = { now: 1_700_000_000 };
  let sequence = 1000;
  const nextId = () => String(++sequence);
  const money = (Currency: string, Amount: number) => ({ Currency, Amount }) as Mangopay.money.MoneyData;

  const walletOf = (id: string) => wallets.find((w) => w.Id === id);
  const ofWallet = (walletID: string) => transactions.filter((t) => t.DebitedWalletId === walletID || t.CreditedWalletId === walletID);

  function route(method: string, path: string, query: URLSearchParams, body: any): { status: number; json: unknown } {
    const list = (items: unknown[]) => {
      const page = Number(query.get('page'));
      const perPage = Number(query.get('per_page'));
      if (!Number.isInteger(page) || page < 1 || !Number.isInteger(perPage) || perPage < 1 || perPage > 100)
        return { status: 400, json: { Message: 'page and per_page (1..100) are required', Type: 'param_error' } };
      return { status: 200, json: items.slice((page - 1) * perPage, page * perPage) };
    };
    const notFound = { status: 404, json: { Message: 'The ressource does not exist', Type: 'ressource_not_found' } };
    const byCreation = <T extends { CreationDate: number }>(items: T[]) =>
      query.get('Sort') === 'CreationDate:ASC' ? [...items].sort((a, b) => a.CreationDate - b.CreationDate) : items;
    let m: RegExpExecArray | null;
    if (method === 'GET' && path === '/users') return list(byCreation(users));
    if (method === 'GET' && (m = /^\/users\/([^/]+)\/wallets$/.exec(path))) return list(byCreation(wallets.filter((w) => w.Owners[0] === m![1])));
    if (method === 'GET' && (m = /^\/users\/([^/]+)\/bankaccounts$/.exec(path))) return list(byCreation(banks.filter((b) => b.UserId === m![1])));
    if (method === 'GET' && (m = /^\/wallets\/([^/]+)$/.exec(path))) return walletOf(m[1]) ? { status: 200, json: walletOf(m[1]) } : notFound;
    if (method === 'GET' && (m = /^\/wallets\/([^/]+)\/transactions$/.exec(path))) {
      if (!walletOf(m[1])) return notFound;
      const after = query.get('AfterDate');
      // AfterDate: created strictly after that Unix time.
      return list(byCreation(ofWallet(m[1]).filter((t) => after === null || t.CreationDate > Number(after))));
    }
    for (const [kind, type] of [
      ['transfers', 'TRANSFER'],
      ['payouts', 'PAYOUT'],
      ['payins', 'PAYIN'],
    ] as const) {
      if (method === 'GET' && (m = new RegExp(`^/${kind}/([^/]+)$`).exec(path))) {
        const found = transactions.find((t) => t.Id === m![1] && t.Type === type);
        return found ? { status: 200, json: found } : notFound;
      }
    }
    if (method === 'GET' && /^\/refunds\/[^/]+$/.test(path)) return notFound;
    if (method === 'POST' && (path === '/transfers' || path === '/payouts/bankwire')) {
      const payout = path === '/payouts/bankwire';
      const required = ['AuthorId', 'DebitedFunds', 'Fees', 'DebitedWalletId', payout ? 'BankAccountId' : 'CreditedWalletId'];
      const missing = required.find((field) => body?.[field] === undefined);
      if (missing) return { status: 400, json: { Message: `One or several required parameters are missing: ${missing}`, Type: 'param_error' } };
      if (payout && body.PaymentType !== 'BANK_WIRE') return { status: 400, json: { Message: 'PaymentType must be BANK_WIRE', Type: 'param_error' } };
      const source = walletOf(body.DebitedWalletId);
      if (!source) return notFound;
      if (source.Owners[0] !== body.AuthorId)
        return { status: 400, json: { Message: 'AuthorId is not the owner of the debited wallet', Type: 'param_error' } };
      const funds = body.DebitedFunds;
      if (funds?.Currency !== source.Currency || !Number.isInteger(funds?.Amount) || funds.Amount <= 0)
        return { status: 400, json: { Message: 'DebitedFunds must be a positive integer amount in the wallet currency', Type: 'param_error' } };
      const common = {
        Id: nextId(),
        Tag: body.Tag ?? '',
        CreationDate: clock.now,
        AuthorId: body.AuthorId,
        DebitedFunds: money(funds.Currency, funds.Amount),
        CreditedFunds: money(funds.Currency, funds.Amount - (body.Fees?.Amount ?? 0)),
        Fees: money(funds.Currency, body.Fees?.Amount ?? 0),
        DebitedWalletId: source.Id,
        Nature: 'REGULAR' as const,
        ResultCode: '000000',
        ResultMessage: 'Success',
      };
      if (payout) {
        if (!banks.some((b) => b.Id === body.BankAccountId && b.UserId === body.AuthorId)) return notFound;
        // A payout is CREATED and settles later (settlePayout), as a bank wire does.
        const created: PayOut = {
          ...common,
          CreditedWalletId: '',
          CreditedUserId: body.AuthorId,
          Status: 'CREATED',
          ExecutionDate: null as unknown as number,
          Type: 'PAYOUT',
          PaymentType: 'BANK_WIRE',
          BankAccountId: body.BankAccountId,
          BankWireRef: body.BankWireRef ?? '',
          PaymentRef: { ReasonType: 'PAYOUT', ReferenceId: '' },
          ModeRequested: 'STANDARD',
          ModeApplied: 'STANDARD',
          ScaContext: '',
          PendingUserAction: null as unknown as Transfer['PendingUserAction'],
        };
        source.Balance = money(source.Currency, source.Balance.Amount - funds.Amount);
        transactions.push(created);
        return { status: 200, json: created };
      }
      const target = walletOf(body.CreditedWalletId);
      if (!target) return notFound;
      const transfer: Transfer = {
        ...common,
        CreditedWalletId: target.Id,
        CreditedUserId: target.Owners[0],
        Status: 'SUCCEEDED',
        ExecutionDate: clock.now,
        Type: 'TRANSFER',
        ScaContext: '',
        PendingUserAction: null as unknown as Transfer['PendingUserAction'],
      };
      source.Balance = money(source.Currency, source.Balance.Amount - funds.Amount);
      target.Balance = money(target.Currency, target.Balance.Amount + funds.Amount);
      transactions.push(transfer);
      return { status: 200, json: transfer };
    }
    if (method === 'GET' && path === '/hooks') return list(hooks);
    if (method === 'POST' && path === '/hooks') {
      if (typeof body?.EventType !== 'string' || typeof body?.Url !== 'string')
        return { status: 400, json: { Message: 'EventType and Url are required', Type: 'param_error' } };
      if (hooks.some((h) => h.EventType === body.EventType && h.Validity === 'VALID'))
        return { status: 409, json: { Message: 'A hook has already been registered for this EventType', Type: 'param_error' } };
      const hook: Hook = {
        Id: nextId(),
        Tag: '',
        CreationDate: clock.now,
        Url: body.Url,
        Status: 'ENABLED',
        Validity: 'VALID',
        EventType: body.EventType,
      };
      hooks.push(hook);
      return { status: 200, json: hook };
    }
    if (method === 'PUT' && (m = /^\/hooks\/([^/]+)$/.exec(path))) {
      const hook = hooks.find((h) => h.Id === m![1]);
      if (!hook) return notFound;
      Object.assign(hook, body.Url ? { Url: body.Url } : {}, body.Status ? { Status: body.Status } : {});
      return { status: 200, json: hook };
    }
    return notFound;
  }

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString();
      const url = new URL(req.url!, 'http://fake');
      const entry: RecordedRequest = {
        method: req.method!,
        path: url.pathname,
        query: url.searchParams,
        headers: req.headers,
        body: undefined,
        status: 0,
      };
      requests.push(entry);
      const answer = (status: number, json: unknown) => {
        entry.status = status;
        res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(json));
      };
      if (req.method === 'POST' && url.pathname === '/v2.01/oauth/token') {
        const expected = `Basic ${Buffer.from(`${clientID}:${apiKey}`).toString('base64')}`;
        if (req.headers.authorization !== expected) return answer(401, { error: 'invalid_client' });
        if (
          !String(req.headers['content-type']).startsWith('application/x-www-form-urlencoded') ||
          new URLSearchParams(text).get('grant_type') !== 'client_credentials'
        )
          return answer(400, { error: 'unsupported_grant_type' });
        const token = `tok${nextId()}`;
        tokens.add(token);
        return answer(200, { access_token: token, token_type: 'Bearer', expires_in: 1200 });
      }
      const prefix = `/v2.01/${clientID}`;
      if (!url.pathname.startsWith(`${prefix}/`)) return answer(404, { Message: 'Unknown client', Type: 'ressource_not_found' });
      const auth = /^Bearer (.+)$/.exec(req.headers.authorization ?? '');
      if (!auth || !tokens.has(auth[1]))
        return answer(401, { Message: 'Authorization has been denied for this request', Type: 'forbidden_ressource' });
      try {
        entry.body = text ? JSON.parse(text) : undefined;
      } catch {
        return answer(400, { Message: 'The body is not JSON', Type: 'param_error' });
      }
      const path = url.pathname.slice(prefix.length);
      if (req.method === 'POST' || req.method === 'PUT') {
        const key = req.headers['idempotency-key'];
        if (typeof key !== 'string' || !IDEMPOTENCY.test(key))
          return answer(400, { Message: 'Idempotency-Key of 16 to 36 characters is required on writes', Type: 'param_error' });
        const seen = replies.get(key);
        if (seen)
          return seen.body === text
            ? answer(seen.status, JSON.parse(seen.answer))
            : answer(409, { Message: 'Idempotency-Key reused', Type: 'param_error' });
        const result = route(req.method, path, url.searchParams, entry.body);
        replies.set(key, { body: text, answer: JSON.stringify(result.json), status: result.status });
        return answer(result.status, result.json);
      }
      const result = route(req.method!, path, url.searchParams, entry.body);
      return answer(result.status, result.json);
    });
  });

  let baseUrl = '';
  const fake: MangopayFake = {
    url: '',
    clientID,
    apiKey,
    requests,
    hooks,
    clock,
    addUser(firstName) {
      const user: User = {
        Id: `user${nextId()}`,
        Tag: '',
        CreationDate: clock.now,
        PersonType: 'NATURAL',
        Email: `${firstName.toLowerCase()}@example.com`,
        KYCLevel: 'LIGHT',
        FirstName: firstName,
        LastName: 'Tester',
        Address: '1 rue de la Paix, Paris',
        Birthday: 0,
        Nationality: 'FR',
        CountryOfResidence: 'FR',
        Occupation: '',
        IncomeRange: 1,
        ProofOfIdentity: null,
        ProofOfAddress: null,
        Capacity: 'NORMAL',
      };
      users.push(user);
      return user;
    },
    addWallet(owner, currency, amount, description) {
      const wallet: Wallet = {
        Id: `w${nextId()}`,
        Tag: '',
        CreationDate: clock.now,
        Owners: [owner],
        Balance: money(currency, amount),
        FundsType: 'DEFAULT',
        Description: description,
        Currency: currency as Wallet['Currency'],
      };
      wallets.push(wallet);
      return wallet;
    },
    addBankAccount(owner, ownerName) {
      const bank: BankAccount = {
        Id: `ba${nextId()}`,
        Tag: '',
        CreationDate: clock.now,
        UserId: owner,
        Type: 'IBAN',
        OwnerName: ownerName,
        OwnerAddress: '1 rue de la Paix, Paris',
        IBAN: 'FR7630004000031234567890143',
        BIC: 'BNPAFRPP',
        Active: true,
      };
      banks.push(bank);
      return bank;
    },
    addPayIn(walletID, amount, status = 'SUCCEEDED') {
      const wallet = walletOf(walletID)!;
      const payIn = {
        Id: `pi${nextId()}`,
        Tag: '',
        CreationDate: clock.now,
        AuthorId: wallet.Owners[0],
        CreditedUserId: wallet.Owners[0],
        DebitedFunds: money(wallet.Currency, amount),
        CreditedFunds: money(wallet.Currency, amount),
        Fees: money(wallet.Currency, 0),
        DebitedWalletId: '',
        CreditedWalletId: walletID,
        Nature: 'REGULAR',
        Status: status,
        ExecutionDate: clock.now,
        ResultCode: '000000',
        ResultMessage: 'Success',
        Type: 'PAYIN',
        PaymentType: 'BANK_WIRE',
        ExecutionType: 'DIRECT',
      } as PayIn;
      if (status === 'SUCCEEDED') wallet.Balance = money(wallet.Currency, wallet.Balance.Amount + amount);
      transactions.push(payIn);
      return payIn;
    },
    settle(id, status) {
      const found = transactions.find((t) => t.Id === id)!;
      found.Status = status;
      found.ExecutionDate = clock.now;
      if (status === 'FAILED') found.ResultCode = '121001';
      if (status === 'SUCCEEDED' && found.Type === 'PAYIN') {
        const wallet = walletOf(found.CreditedWalletId)!;
        wallet.Balance = money(wallet.Currency, wallet.Balance.Amount + found.DebitedFunds.Amount);
      }
      return found;
    },
    hookCall(eventType, resourceID, date = clock.now) {
      const hook = hooks.find((h) => h.EventType === eventType && h.Validity === 'VALID' && h.Status === 'ENABLED');
      if (!hook) throw new Error(`no hook registered for ${eventType}`);
      return `${new URL(hook.Url).pathname}?${new URLSearchParams({ EventType: eventType, RessourceId: resourceID, Date: String(date) })}`;
    },
    close: () => new Promise<void>((done) => server.close(() => done())),
  };
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => {
      baseUrl = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
      fake.url = baseUrl;
      resolve(fake);
    }),
  );
}

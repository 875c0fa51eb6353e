import { compileNumscript, runNumscript } from '../../../numscript';
import { MemoryStore } from './memory-store';
import { failure, run } from './run';

describe('numscript interpreter', () => {
  it('lets later sends see the balances changed by earlier ones', async () => {
    const store = new MemoryStore({ a: { USD: 10n } });
    const result = await run(
      `send [USD 10] (source = @a destination = @b)
       send [USD 10] (source = @b destination = @c)
       send [USD *] (source = { @a @c } destination = @d)`,
      { store },
    );
    expect(result.moves).toEqual(['a>b:10 USD', 'b>c:10 USD', 'c>d:10 USD']);
    // Each (account, asset) is read from the store once; @b's credit made it readable without a store value of its own.
    expect(store.balanceReads).toEqual(['a USD', 'b USD', 'c USD']);
    expect(await failure(run('send [USD 6] (source = @a destination = @b)\nsend [USD 6] (source = @a destination = @b)', { store }))).toMatch(
      /^INSUFFICIENT_FUND: account\(s\) @a /,
    );
  });

  it('keeps assets apart', async () => {
    const store = new MemoryStore({ a: { USD: 10n, EUR: 0n } });
    expect(await failure(run('send [EUR 1] (source = @a destination = @b)', { store }))).toBe(
      'INSUFFICIENT_FUND: account(s) @a had insufficient funds: needed EUR 1, could take EUR 0',
    );
  });

  it('writes transaction and account metadata with every value type as a string', async () => {
    const result = await run(
      `vars { account $acc  portion $p }
       set_tx_meta("string", "text")
       set_tx_meta("number", 42)
       set_tx_meta("monetary", [USD/2 100])
       set_tx_meta("portion", 12.5%)
       set_tx_meta("account", $acc)
       set_tx_meta("asset", EUR)
       set_account_meta($acc, "ratio", $p)
       set_account_meta($acc, "status", "active")
       set_account_meta(@merchants:1, "status", "on hold")
       set_tx_meta("string", "overwritten")`,
      { vars: { acc: 'users:1', p: '2/6' } },
    );
    expect(result.postings).toEqual([]);
    expect(result.txMetadata).toEqual({
      string: 'overwritten',
      number: '42',
      monetary: 'USD/2 100',
      portion: '1/8',
      account: 'users:1',
      asset: 'EUR',
    });
    expect(result.accountMetadata).toEqual({ 'users:1': { ratio: '1/3', status: 'active' }, 'merchants:1': { status: 'on hold' } });
  });

  it('keeps huge amounts exact (2^128 and beyond)', async () => {
    const huge = 2n ** 128n;
    const store = new MemoryStore({ whale: { 'BTC/8': huge } });
    const result = await run(
      `send [BTC/8 ${huge}] (source = @whale destination = { 1/3 to @a  1/3 to @b  remaining to @c })
       send [BTC/8 ${huge * huge}] (source = @world destination = @d)`,
      { store },
    );
    const third = huge / 3n;
    expect(result.postings.map((p) => p.amount)).toEqual([third + 1n, third, third, huge * huge]);
    expect(result.postings.slice(0, 3).reduce((sum, p) => sum + p.amount, 0n)).toBe(huge);
    expect(await failure(run(`send [BTC/8 ${huge + 1n}] (source = @whale destination = @a)`, { store }))).toMatch(/^INSUFFICIENT_FUND/);
  });

  it('compiles once and runs many times with other vars and stores', async () => {
    const program = compileNumscript('vars { monetary $m }\nsend $m (source = @a destination = @b)');
    const first = await runNumscript(program, { m: 'USD 5' }, new MemoryStore({ a: { USD: 5n } }));
    const second = await runNumscript(program, { m: 'EUR 7' }, new MemoryStore({ a: { EUR: 9n } }));
    expect(first.postings).toEqual([{ source: 'a', destination: 'b', amount: 5n, asset: 'USD' }]);
    expect(second.postings).toEqual([{ source: 'a', destination: 'b', amount: 7n, asset: 'EUR' }]);
    // The compiled form of a source is reused.
    expect(compileNumscript('vars { monetary $m }\nsend $m (source = @a destination = @b)')).toBe(program);
  });

  it('runs a realistic payment script end to end', async () => {
    const store = new MemoryStore(
      { 'users:001:wallet': { 'USD/2': 3000n }, 'users:001:credit': { 'USD/2': 0n } },
      {
        'orders:42': { merchant: 'merchants:7' },
      },
    );
    const result = await run(
      `vars {
        monetary $price
        account $merchant = meta(@orders:42, "merchant")
      }
      /* pay from the wallet first, then up to 20.00 of credit */
      send $price (
        source = {
          @users:001:wallet
          @users:001:credit allowing overdraft up to [USD/2 2000]
        }
        destination = {
          2.9% to @platform:fees     // card fee
          remaining to $merchant
        }
      )
      set_tx_meta("order", "42")`,
      { vars: { price: 'USD/2 4500' }, store },
    );
    expect(result.moves).toEqual([
      'users:001:wallet>platform:fees:131 USD/2',
      'users:001:wallet>merchants:7:2869 USD/2',
      'users:001:credit>merchants:7:1500 USD/2',
    ]);
    expect(result.txMetadata).toEqual({ order: '42' });
  });
});

import { parse } from '../../../numscript/parser';
import { compileNumscript } from '../../../numscript';
import { compileError } from './compile-error';

describe('numscript parser', () => {
  it('parses a vars block with every type and both origins', () => {
    const program = parse(`vars {
      account $a  monetary $m  portion $p  number $n  string $s  asset $x
      account $merchant = meta($a, "merchant")
      monetary $bal = balance(@users:001, USD/2)
    }`);
    expect(program.vars.map((v) => `${v.type} ${v.name}`)).toEqual([
      'account a',
      'monetary m',
      'portion p',
      'number n',
      'string s',
      'asset x',
      'account merchant',
      'monetary bal',
    ]);
    expect(program.vars[6].origin).toMatchObject({ kind: 'call', name: 'meta', args: [{ kind: 'var', name: 'a' }, { value: 'merchant' }] });
    expect(program.vars[7].origin).toMatchObject({ kind: 'call', name: 'balance', args: [{ address: 'users:001' }, { asset: 'USD/2' }] });
    expect(program.vars[1].pos).toEqual({ line: 2, column: 19 });
  });

  it('parses send amounts: literal, all, variable, variable asset and amount', () => {
    const amounts = ['[USD/2 100]', '[EUR *]', '$m', '[$x $n]'].map(
      (amount) => (parse(`send ${amount} (source = @world destination = @a)`).statements[0] as { amount: unknown }).amount,
    );
    expect(amounts[0]).toMatchObject({ kind: 'monetary', asset: { asset: 'USD/2' }, amount: { value: 100n } });
    expect(amounts[1]).toMatchObject({ kind: 'monetary', amount: 'all' });
    expect(amounts[2]).toMatchObject({ kind: 'var', name: 'm' });
    expect(amounts[3]).toMatchObject({ kind: 'monetary', asset: { kind: 'var', name: 'x' }, amount: { kind: 'var', name: 'n' } });
  });

  it('parses every source kind, nested', () => {
    const [send] = parse(`send [USD 10] (
      source = {
        @a allowing overdraft up to [USD 5]
        max [USD 3] from @b
        @c allowing unbounded overdraft
        { 1/2 from @d  remaining from { @e @f } }
      }
      destination = @z
    )`).statements;
    expect(send).toMatchObject({
      kind: 'send',
      source: {
        kind: 'inorder',
        sources: [
          { kind: 'account', account: { address: 'a' }, overdraft: { kind: 'bounded', limit: { amount: { value: 5n } } } },
          { kind: 'max', limit: { amount: { value: 3n } }, source: { kind: 'account', account: { address: 'b' } } },
          { kind: 'account', account: { address: 'c' }, overdraft: { kind: 'unbounded' } },
          {
            kind: 'allotment',
            parts: [
              {
                share: { kind: 'portion', portion: { kind: 'infix', op: '/', left: { value: 1n }, right: { value: 2n } } },
                source: { kind: 'account' },
              },
              { share: { kind: 'remaining' }, source: { kind: 'inorder' } },
            ],
          },
        ],
      },
    });
  });

  it('tells an in-order list of account variables from an allotment of portion variables', () => {
    const inorder = parse('send [USD 1] (source = { $a $b } destination = @z)').statements[0];
    const allotment = parse('send [USD 1] (source = { $p from $a remaining from $b } destination = @z)').statements[0];
    expect(inorder).toMatchObject({ source: { kind: 'inorder' } });
    expect(allotment).toMatchObject({ source: { kind: 'allotment' } });
  });

  it('parses every destination kind: account, portions with remaining, in-order with max and kept', () => {
    const [send] = parse(`send [USD 10] (
      source = @world
      destination = {
        12.5% to @fees
        1/3 to { max [USD 2] to @x  max $cap kept  remaining to @y }
        $p kept
        remaining to @rest
      }
    )`).statements;
    expect(send).toMatchObject({
      destination: {
        kind: 'allotment',
        parts: [
          { share: { portion: { value: { num: 1n, den: 8n } } }, target: { kind: 'to', destination: { kind: 'account' } } },
          {
            share: { portion: { kind: 'infix', op: '/', left: { value: 1n }, right: { value: 3n } } },
            target: {
              kind: 'to',
              destination: {
                kind: 'inorder',
                parts: [{ target: { kind: 'to' } }, { limit: { kind: 'var', name: 'cap' }, target: { kind: 'kept' } }],
                remaining: { kind: 'to', destination: { account: { address: 'y' } } },
              },
            },
          },
          { share: { portion: { kind: 'var', name: 'p' } }, target: { kind: 'kept' } },
          { share: { kind: 'remaining' }, target: { kind: 'to' } },
        ],
      },
    });
  });

  it('parses metadata statements with values of every type, skipping both kinds of comments (strings kept raw, as Formance)', () => {
    const program = parse(`// a line comment
      set_tx_meta("note", "a \\"quoted\\" value") /* a block
      comment over lines */ set_tx_meta("amount", [USD/2 42])
      set_account_meta(@users:1, "ratio", 1/4) // trailing
      set_account_meta($a, "asset", EUR)`);
    expect(program.statements).toMatchObject([
      { kind: 'set_tx_meta', key: { value: 'note' }, value: { kind: 'string', value: 'a \\"quoted\\" value' } },
      { kind: 'set_tx_meta', value: { kind: 'monetary' }, pos: { line: 3, column: 29 } },
      { kind: 'set_account_meta', account: { address: 'users:1' }, value: { kind: 'infix', op: '/' } },
      { kind: 'set_account_meta', account: { kind: 'var', name: 'a' }, value: { kind: 'asset', asset: 'EUR' } },
    ]);
  });

  it("accepts assets and accounts at the edge of the ledger rules (an asset's `_` is not Numscript, as in Formance)", () => {
    expect(() => compileNumscript('send [ABCDEFGHIJKLMNOPQ/123456 1] (source = @a_b-c:D-1 destination = @world)')).not.toThrow();
  });

  describe('nesting is bounded: a compilation error, never a stack overflow', () => {
    const send = (source: string, destination: string) => `send [USD 10] (source = ${source} destination = ${destination})`;
    const sources = (levels: number) => '{ '.repeat(levels) + '@a' + ' }'.repeat(levels);
    const maxFrom = (levels: number) => 'max [USD 10] from '.repeat(levels) + '@a';
    const allotments = (levels: number) => '{ 100% from '.repeat(levels) + '@a' + ' }'.repeat(levels);
    const destinations = (levels: number) => '{ 100% to '.repeat(levels) + '@b' + ' }'.repeat(levels);
    const inorder = (levels: number) => '{ remaining to '.repeat(levels) + '@b' + ' }'.repeat(levels);

    it.each([
      ['source blocks', (n: number) => send(sources(n), '@b'), 'source nested deeper than 64 levels'],
      ['max ... from', (n: number) => send(maxFrom(n), '@b'), 'source nested deeper than 64 levels'],
      ['source allotments', (n: number) => send(allotments(n), '@b'), 'source nested deeper than 64 levels'],
      ['destination allotments', (n: number) => send('@a', destinations(n)), 'destination nested deeper than 64 levels'],
      ['destination remaining', (n: number) => send('@a', inorder(n)), 'destination nested deeper than 64 levels'],
    ])('%s: 5000 levels and 65 are refused, 64 compile', (_name, script, message) => {
      expect(compileError(script(5000))).toMatch(new RegExp(`^1:\\d+: ${message}$`));
      expect(compileError(script(65))).toMatch(new RegExp(`^1:\\d+: ${message}$`));
      expect(() => compileNumscript(script(64))).not.toThrow();
    });

    it.each([
      ['parentheses', (n: number) => `set_tx_meta("k", ${'('.repeat(n)}1${')'.repeat(n)})`, 'expression nested deeper than 64 levels'],
      ['negations', (n: number) => `set_tx_meta("k", ${'-'.repeat(n)}1)`, 'expression nested deeper than 64 levels'],
      ['a chain of +', (n: number) => `set_tx_meta("k", 1${' + 1'.repeat(n)})`, 'expression with more than 64 operands in a row'],
    ])('%s: 100000 and 70 are refused, 50 compile', (_name, script, message) => {
      expect(compileError(script(100_000))).toMatch(new RegExp(`^1:\\d+: ${message}`));
      expect(compileError(script(70))).toMatch(new RegExp(`^1:\\d+: ${message}`));
      expect(() => compileNumscript(script(50))).not.toThrow();
    });

    it('a chain of / is bounded the same way (before its types are checked)', () => {
      expect(compileError(`set_tx_meta("k", 1${' / 1'.repeat(100_000)})`)).toMatch(/^1:\d+: expression with more than 64 operands in a row/);
    });
  });

  describe('syntax errors carry line:column of the offending token', () => {
    it.each([
      ['send [USD 10] (\n  source = @a\n  destination = \n)', "4:1: expected an account like @users:001 or a variable, found ')'"],
      ['send [USD 10] (\n  destination = @a\n)', "2:3: expected 'source', found 'destination'"],
      ['send [usd 10] (source = @a destination = @b)', "1:7: expected a value, found 'usd'"],
      ['send [USD/1234567 10] (source = @a destination = @b)', '1:7: invalid asset USD/1234567'],
      ['send [USD 10] (source = @a:: destination = @b)', '1:25: invalid account address @a::'],
      ['send [USD 10] (source = @a destination = @b', "1:44: expected ')', found end of script"],
      ['vars {\n  money $m\n}', '2:3: unknown type money'],
      ['send [USD 10] (source = @a destination = { 150% to @b })', '1:44: invalid portion 150%'],
      ['send [USD 10] (source = @a destination = { })', '1:44: empty destination block'],
      ['send [USD 10] (source = {} destination = @b)', '1:26: empty source block'],
      ['send [USD 10] (source = max [USD *] from @a destination = @b)', '1:34: * (all available funds) is only allowed in send and save'],
      ['set_tx_meta("k", "unterminated)', '1:18: unterminated string'],
      ['/* never closed\nsend', '1:1: unterminated comment'],
      ['send [USD 10] (source = @a destination = @b) #', '1:46: expected a pragma like #![feature("experimental-oneof")]'],
      ['send [USD 10] (source = @a destination = @b) ~', '1:46: unexpected character "~"'],
      ['print $x', '1:1: unknown statement print'],
      ['send [USD 10] (source = @a destination = { max [USD 1] to @b })', "1:62: expected 'remaining', found '}'"],
      ['vars { account $a = meta(@x) }', '1:21: meta() takes 2 argument(s), got 1'],
    ])('%j', (source, message) => {
      expect(compileError(source)).toContain(message);
      expect(compileError(source).startsWith(message.slice(0, message.indexOf(' ')))).toBe(true);
    });
  });
});

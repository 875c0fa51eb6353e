import { compileNumscript } from '../../../numscript';
import { compileError } from './compile-error';

describe('numscript type checker', () => {
  it.each([
    ['send $a (source = @world destination = @b)', 'vars { account $a }\n', '2:6: expected a monetary, $a is an account'],
    ['send [USD 1] (source = $m destination = @b)', 'vars { monetary $m }\n', '2:24: expected an account, $m is a monetary'],
    ['send [USD 1] (source = @a destination = $s)', 'vars { string $s }\n', '2:41: expected an account, $s is a string'],
    ['send [$n 1] (source = @a destination = @b)', 'vars { number $n }\n', '2:7: expected an asset, $n is a number'],
    ['send [USD $x] (source = @a destination = @b)', 'vars { asset $x }\n', '2:11: expected a number, $x is an asset'],
    ['send [USD 1] (source = @a destination = { $a to @b remaining to @c })', 'vars { account $a }\n', '2:43: expected a portion, $a is an account'],
    ['send [USD 1] (source = max $p from @a destination = @b)', 'vars { portion $p }\n', '2:28: expected a monetary, $p is a portion'],
    ['set_tx_meta($n, "v")', 'vars { number $n }\n', '2:13: expected a string, $n is a number'],
    ['set_account_meta("a", "k", "v")', '', '1:18: expected an account, found a string'],
    ['send $undeclared (source = @a destination = @b)', '', '1:6: variable $undeclared is not declared'],
    ['set_tx_meta("k", $nope)', '', '1:18: variable $nope is not declared'],
  ])('%s', (statement, vars, message) => {
    expect(compileError(vars + statement)).toBe(message);
  });

  it('checks declarations: duplicates, origins typed and using only earlier variables', () => {
    expect(compileError('vars {\n account $a\n monetary $a\n}')).toBe('3:2: variable $a is declared twice');
    expect(compileError('vars { account $m = meta($later, "k")  account $later }')).toBe('1:26: variable $later is not declared');
    expect(compileError('vars { account $m = meta(@a, 42) }')).toBe('1:30: expected a string, found a number');
    expect(compileError('vars { portion $b = balance(@a, USD) }')).toBe('1:21: the origin of $b gives a monetary, not a portion');
    expect(compileError('vars { monetary $b = balance(@a, "USD") }')).toBe('1:34: expected an asset, found a string');
  });

  it('checks literal allotments: at most 100%, exactly 100% without remaining, remaining anywhere', () => {
    expect(compileError('send [USD 1] (source = @a destination = { 1/2 to @b 2/3 to @c })')).toBe(
      '1:43: the portions of an allotment add up to more than 100%',
    );
    expect(compileError('send [USD 1] (source = @a destination = { 1/2 to @b 1/3 to @c })')).toBe(
      '1:43: the portions of an allotment must add up to 100% (or use `remaining`)',
    );
    expect(() => compileNumscript('send [USD 1] (source = { 1/2 from @a remaining from @b remaining from @c } destination = @d)')).not.toThrow();
    expect(() => compileNumscript('send [USD 1] (source = @a destination = { 1/2 to @b 50% to @c remaining kept })')).not.toThrow();
  });
});

import { resolveStage, validateConfig } from '../../../lib/orchestration/config';

const WALLET = '3f1c2a4e-8d6b-4c1e-9a7f-2b5d8e0c1a3b';
const send = (source: unknown, destination: unknown, amount: unknown = { asset: 'USD/2', amount: 100 }) => ({
  send: { source, destination, amount },
});
const account = (id: string, ledger?: string) => ({ account: { id, ...(ledger !== undefined ? { ledger } : {}) } });
const check = (stage: unknown) => () => validateConfig({ stages: [{ noop: {} }, stage] });

describe('orchestration config literals', () => {
  it.each([
    ['a source address', send(account('orch:😀'), account('b')), 'stages[1].send.source.account.id: invalid account address "orch:😀"'],
    ['a destination address', send(account('a'), account('world:')), 'stages[1].send.destination.account.id: invalid account address "world:"'],
    ['an update address', { update: { account: { id: 'a::b', metadata: {} } } }, 'stages[1].update.account.id: invalid account address "a::b"'],
    [
      'the literal part of an address',
      send(account('orch:😀:${id}'), account('b')),
      'stages[1].send.source.account.id: invalid account address "orch:😀:${id}"',
    ],
    [
      'an address ending in a separator',
      send(account('a'), account('users:${id}:')),
      'stages[1].send.destination.account.id: invalid account address',
    ],
    ['a ledger name', send(account('a', 'my ledger'), account('b')), 'stages[1].send.source.account.ledger: invalid ledger name "my ledger"'],
    ['a wallet id', send({ wallet: { id: 'w1' } }, account('b')), 'stages[1].send.source.wallet.id: "w1" is not a wallet id'],
    [
      'a wallet name',
      send(account('a'), { wallet: { name: 'n'.repeat(201) } }),
      'stages[1].send.destination.wallet.name: is longer than a wallet name can be',
    ],
    [
      'a balance name',
      send({ wallet: { id: WALLET, balance: 'a b' } }, account('b')),
      'stages[1].send.source.wallet.balance: invalid balance name "a b"',
    ],
    [
      '* as a credited balance',
      send(account('a'), { wallet: { id: WALLET, balance: '*' } }),
      'stages[1].send.destination.wallet.balance: invalid balance name "*"',
    ],
    [
      '* between two wallets',
      send({ wallet: { id: WALLET, balance: '*' } }, { wallet: { name: 'w' } }),
      'stages[1].send.source.wallet.balance: invalid balance name "*"',
    ],
    ['a payment id', send({ payment: { id: 'not base64!' } }, account('b')), 'stages[1].send.source.payment.id: "not base64!" is not a payments id'],
    [
      'a connector id',
      send(account('a'), { payment: { connectorId: 'x/y' } }),
      'stages[1].send.destination.payment.connectorId: "x/y" is not a payments id',
    ],
    [
      'a suffixed asset sent to a payment',
      send(account('a'), { payment: { psp: 'x' } }, { asset: 'EUR_CENT/2', amount: 1 }),
      'stages[1].send.amount.asset: "EUR_CENT/2" is not an asset a payment provider takes',
    ],
    [
      'an amount beyond 2^53 given as an inexact number',
      send(account('a'), account('b'), { asset: 'USD', amount: 2 ** 53 + 2 }),
      'stages[1].send.amount.amount: must be a non-negative integer',
    ],
    [
      'an event name no one can send',
      { wait_event: { event: 'e'.repeat(501) } },
      'stages[1].wait_event.event: is longer than an event name can be (500)',
    ],
  ])('refuses %s', (_name, stage, message) => {
    expect(check(stage)).toThrow(message);
  });

  it.each([
    ['addresses, ledgers and ids in the grammars', send(account('users:1_a-b', 'main-2'), { wallet: { id: WALLET, balance: 'savings' } })],
    ["the ledger grammar's suffixed assets between accounts", send(account('a'), account('b'), { asset: 'EUR_CENT/2', amount: 1 })],
    ['* for a debited balance', send({ wallet: { name: 'w', balance: '*' } }, account('b'))],
    ['an amount beyond 2^53, exactly', send(account('a'), account('b'), { asset: 'USD', amount: 123456789012345678901234567890n })],
    ['payment and connector ids', send({ payment: { id: 'eyJDb25uZWN0b3JJRCI6ImEifQ' } }, account('b'), undefined)],
    [
      'variables wherever a value may come from one',
      send(account('users:${id}', '${ledger}'), { wallet: { id: '${w}', balance: '${b}' } }, { asset: '${asset}', amount: '${n}' }),
    ],
    ['an address that is all variable', send(account('${from}'), account('${to}'))],
  ])('accepts %s', (_name, stage) => {
    expect(check(stage)).not.toThrow();
  });

  it('leaves values from variables to the services at run time, so a replayed run resolves as it was recorded', () => {
    const stage = send(account('${from}', '${ledger}'), { wallet: { id: '${w}' } });
    expect(resolveStage(stage, 0, { from: 'orch:😀', ledger: 'no ledger', w: 'not-a-uuid' })).toMatchObject({
      spec: { source: { account: { id: 'orch:😀', ledger: 'no ledger' } }, destination: { wallet: { id: 'not-a-uuid' } } },
    });
  });
});

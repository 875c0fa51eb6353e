import { randomBytes } from 'node:crypto';
import { decodeCursor, encodeCursor, type CursorScope } from '../../api/pagination';

const scope: CursorScope = { key: randomBytes(32), list: '["listPayments",{}]' };
const state = { f: { walletID: 'w1' }, p: 20, k: [123456789012345678901234567890n], d: 'next' as const };
const refused = expect.objectContaining({ code: 'VALIDATION', status: 400, message: expect.stringMatching(/^invalid cursor: /) });

/** Flips one bit of the decoded bytes at `index` and re-encodes, as an attacker editing a cursor would. */
function withFlippedBit(cursor: string, index: number): string {
  const raw = Buffer.from(cursor, 'base64url');
  raw[index] ^= 0x01;
  return raw.toString('base64url');
}

describe('cursors', () => {
  it('round-trip their state, big integers included, as an opaque base64url string', () => {
    const cursor = encodeCursor(state, scope);
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodeCursor(cursor, scope)).toEqual(state);
  });

  it('are accepted by another process holding the same key', () => {
    const cursor = encodeCursor(state, scope);
    expect(decodeCursor(cursor, { key: Buffer.from(scope.key), list: scope.list })).toEqual(state);
  });

  it('refuse a cursor with any byte changed, in the tag or in the state', () => {
    const cursor = encodeCursor(state, scope);
    const length = Buffer.from(cursor, 'base64url').length;
    for (const index of [0, 15, 16, length - 1]) expect(() => decodeCursor(withFlippedBit(cursor, index), scope)).toThrow(refused);
  });

  it('refuse a cursor issued for another list, or under another key', () => {
    const cursor = encodeCursor(state, scope);
    expect(() => decodeCursor(cursor, { ...scope, list: '["listLedgers",{}]' })).toThrow(refused);
    expect(() => decodeCursor(cursor, { ...scope, list: '["listTransactions",{"ledger":"b"}]' })).toThrow(refused);
    expect(() => decodeCursor(cursor, { ...scope, key: randomBytes(32) })).toThrow(refused);
  });

  it('refuse a truncated or extended cursor', () => {
    const cursor = encodeCursor(state, scope);
    expect(() => decodeCursor(cursor.slice(0, -4), scope)).toThrow(refused);
    expect(() => decodeCursor(cursor.slice(0, 22), scope)).toThrow(refused);
    expect(() => decodeCursor(`${cursor}AAAA`, scope)).toThrow(refused);
  });

  it('refuse a cursor spelled with characters outside base64url, even if they decode to the same bytes', () => {
    const cursor = encodeCursor(state, scope);
    expect(() => decodeCursor(`${cursor.slice(0, 10)}!${cursor.slice(10)}`, scope)).toThrow(refused);
    expect(() => decodeCursor(`${cursor}=`, scope)).toThrow(refused);
  });

  it.each([
    ['empty', ''],
    ['not base64', 'not-base64!!'],
    ['unsigned state of the earlier format', Buffer.from('{"f":{},"p":4,"k":["abc"],"d":"next"}').toString('base64url')],
    ['foreign JSON', Buffer.from('{"f":1}').toString('base64url')],
    ['a short array', Buffer.from('[]').toString('base64url')],
  ])('refuse a cursor the server did not issue (%s)', (_name, cursor) => {
    expect(() => decodeCursor(cursor, scope)).toThrow(refused);
  });
});

import { decodeCursor, encodeCursor } from '../../api/pagination';

describe('cursors', () => {
  it('round-trip their state, big integers included', () => {
    const state = { f: { walletID: 'w1' }, p: 20, k: [123456789012345678901234567890n], d: 'next' as const };
    expect(decodeCursor(encodeCursor(state))).toEqual(state);
  });

  it.each(['', 'not-base64!!', Buffer.from('{"f":1}').toString('base64url'), Buffer.from('[]').toString('base64url')])(
    'refuses a forged or truncated cursor %j with VALIDATION',
    (cursor) => {
      expect(() => decodeCursor(cursor)).toThrow(expect.objectContaining({ code: 'VALIDATION', status: 400 }));
    },
  );
});

import { createSecretStandIn, readBasicCredentials } from '../../api/auth/client-secret';

const header = (raw: string) => `Basic ${Buffer.from(raw, 'utf8').toString('base64')}`;

describe('client secret checks before oidc-provider', () => {
  it('read a Basic header as the provider does: form-decoded halves, the raw id kept for the rewritten header', () => {
    expect(readBasicCredentials(header('my%20client:a+b%2Bc:d'))).toEqual({
      scheme: 'Basic',
      encodedId: 'my%20client',
      clientId: 'my client',
      secret: 'a b+c:d',
    });
    expect(readBasicCredentials(`basic ${Buffer.from('id:').toString('base64')}`)).toEqual({
      scheme: 'basic',
      encodedId: 'id',
      clientId: 'id',
      secret: '',
    });
  });

  it.each([
    ['no header', undefined],
    ['another scheme', 'Bearer abc'],
    ['extra spaces', `Basic  ${Buffer.from('id:s').toString('base64')}`],
    ['no colon', header('id-and-secret')],
    ['a bad escape', header('id:%zz')],
    ['a character outside visible ASCII', header('id:caf\u00e9')],
  ])('leave %s to the provider', (_name, value) => {
    expect(readBasicCredentials(value)).toBeUndefined();
  });

  it('make a stand-in per client and per process: an HMAC, 43 base64url characters', () => {
    const standIn = createSecretStandIn();
    expect(standIn('a')).toBe(standIn('a'));
    expect(standIn('a')).not.toBe(standIn('b'));
    expect(createSecretStandIn()('a')).not.toBe(standIn('a'));
    expect(standIn('a')).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });
});

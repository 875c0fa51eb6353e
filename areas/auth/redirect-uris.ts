import { validationError } from '../../lib/errors';

/** Schemes that run or read something in the browser instead of reaching an application: never a redirect target. */
const NEVER = new Set(['javascript:', 'vbscript:', 'data:', 'file:', 'blob:', 'about:', 'filesystem:']);

/** A private-use scheme in reverse domain notation, as RFC 8252 §7.1 asks of native apps (`com.example.app:`). */
const PRIVATE_USE_SCHEME = /^[a-z][a-z0-9+-]*(\.[a-z0-9+-]+)+:$/;

const isLoopback = (hostname: string): boolean => hostname === 'localhost' || hostname === '[::1]' || /^127(\.\d{1,3}){3}$/.test(hostname);

/**
 * Why `uri` cannot be a redirect URI, or undefined when it can. OAuth 2.1 and RFC 8252: https; http only on a loopback
 * address (a native app's local listener, RFC 8252 §7.3); a private-use scheme in reverse domain notation (§7.1).
 * No fragment (RFC 6749 §3.1.2). An authorization server redirecting to `javascript:` or `data:` would run the
 * attacker's code in its own origin's navigation, so such schemes are refused whatever else is allowed.
 */
export function redirectUriProblem(uri: string): string | undefined {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return 'not an absolute URI';
  }
  if (uri !== uri.trim()) return 'must not start or end with whitespace';
  if (NEVER.has(url.protocol)) return `the ${url.protocol} scheme is never allowed`;
  if (uri.includes('#')) return 'must not contain a fragment (RFC 6749 §3.1.2)';
  if (url.protocol === 'https:') return undefined;
  if (url.protocol === 'http:')
    return isLoopback(url.hostname)
      ? undefined
      : 'http is allowed only on a loopback address (127.0.0.1, [::1], localhost; RFC 8252 §7.3): use https';
  if (PRIVATE_USE_SCHEME.test(url.protocol)) return undefined;
  return `the ${url.protocol} scheme is not allowed: use https, http on a loopback address, or a private-use scheme in reverse domain notation such as com.example.app:/callback (RFC 8252 §7.1)`;
}

/** @throws ApiError VALIDATION naming the first refused URI, e.g. `body.redirectUris[1]: …`. */
export function assertRedirectUris(field: 'redirectUris' | 'postLogoutRedirectUris', uris: readonly string[] | undefined): void {
  (uris ?? []).forEach((uri, index) => {
    const problem = redirectUriProblem(uri);
    if (problem) throw validationError(`body.${field}[${index}]: ${problem}`);
  });
}

import type Koa from 'koa';

/**
 * What every HTML page the API serves shares: escaping, and the browser security headers (set on every text/html
 * answer by request-context.ts, whoever wrote it: a route, the issuer's error page, Koa's redirect body).
 */

export const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/**
 * A Content-Security-Policy from a page's own directives, always with the ones no page needs loosened: no framing (the
 * consent page's links are exactly what a clickjacking frame would overlay), no <base> rewriting relative URLs, and
 * nothing else allowed by default.
 */
export function contentSecurityPolicy(directives: Record<string, string> = {}): string {
  const all: Record<string, string> = {
    'default-src': "'none'",
    'base-uri': "'none'",
    'form-action': "'none'",
    ...directives,
    'frame-ancestors': "'none'",
  };
  return Object.entries(all)
    .map(([name, value]) => `${name} ${value}`)
    .join('; ');
}

/** The policy of a page that sets none: a static page of text and links, no script, style, image or form. */
export const STRICT_PAGE_POLICY = contentSecurityPolicy();

/**
 * Headers for an HTML answer: its page's policy (STRICT_PAGE_POLICY unless the page set one through
 * contentSecurityPolicy), no framing for browsers without CSP level 2 (X-Frame-Options), and no Referer, so a link's
 * query (the consent page's single-use state) does not leak to the next site. Every answer gets nosniff separately.
 */
export function secureHtmlAnswer(ctx: Koa.Context): void {
  if (!ctx.response.get('Content-Security-Policy')) ctx.set('Content-Security-Policy', STRICT_PAGE_POLICY);
  ctx.set('X-Frame-Options', 'DENY');
  ctx.set('Referrer-Policy', 'no-referrer');
}

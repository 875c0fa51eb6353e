import fs from 'node:fs';
import path from 'node:path';
import { getAbsoluteFSPath } from 'swagger-ui-dist';
import { openRoute } from '../../middleware/authenticate';
import { defineRoute } from '../../routing';
import { ApiError } from '../../../lib/errors';
import { validate } from '../../middleware/validate';
import { objectSchema, stringSchema } from '../../schemas/common';
import { contentSecurityPolicy } from '../../html';

const ASSETS = new Set(['swagger-ui.css', 'swagger-ui-bundle.js', 'swagger-ui-standalone-preset.js', 'favicon-32x32.png']);
const assetDir = getAbsoluteFSPath();

const PAGE = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Financial Platform API</title>
<link rel="stylesheet" href="/api/docs/swagger-ui.css"></head>
<body><div id="ui"></div>
<script src="/api/docs/swagger-ui-bundle.js"></script>
<script src="/api/docs/init.js"></script>
</body></html>`;

// A separate script rather than inline code keeps the page compatible with a strict Content-Security-Policy.
const INIT = `window.ui = SwaggerUIBundle({ url: '/api/openapi.json', dom_id: '#ui', deepLinking: true, persistAuthorization: true });`;

const docsSpec = { tags: ['system'], responses: { 200: { description: 'The page or asset' } } };

/**
 * The page's policy: its scripts and stylesheet from here only (no inline code: init.js is a file for that); images
 * from here and the `data:` URIs of swagger-ui.css's icons (and `blob:` for an image response shown by "Try it out");
 * requests to this origin (the OpenAPI document) and to the public URL the document names as its server and token
 * URL, which differs from the page's origin behind a proxy. The bundle needs no eval: its `Function(...)` calls are
 * fallbacks for engines without globalThis or Function.prototype.bind.
 */
function docsPolicy(publicUrl: string): string {
  let publicOrigin = '';
  try {
    publicOrigin = ` ${new URL(publicUrl).origin}`;
  } catch {
    // No usable public URL: the page still talks to its own origin.
  }
  return contentSecurityPolicy({
    'script-src': "'self'",
    'style-src': "'self'",
    'img-src': "'self' data: blob:",
    'connect-src': `'self'${publicOrigin}`,
    'form-action': "'self'",
  });
}

/** Interactive API docs (Swagger UI), served from the installed swagger-ui-dist package: no CDN. */
export const docsPageRoute = defineRoute(
  { ...docsSpec, method: 'get', path: '/api/docs', operationId: 'docsPage', summary: 'Interactive API documentation' },
  openRoute(),
  async function docsPage(ctx) {
    ctx.type = 'text/html';
    ctx.set('Content-Security-Policy', docsPolicy(ctx.deps.config.publicUrl));
    ctx.body = PAGE;
  },
);

export const docsAssetRoute = defineRoute(
  { ...docsSpec, method: 'get', path: '/api/docs/{asset}', operationId: 'docsAsset', summary: 'Asset of the documentation page' },
  openRoute(),
  validate({ params: objectSchema({ asset: stringSchema({ minLength: 1 }) }, ['asset']) }),
  async function docsAsset(ctx) {
    const { asset } = ctx.state.input.params;
    if (asset === 'init.js') {
      ctx.type = 'application/javascript';
      ctx.body = INIT;
      return;
    }
    if (!ASSETS.has(asset)) throw new ApiError('NOT_FOUND', `no documentation asset "${asset}"`);
    ctx.type = path.extname(asset);
    ctx.set('Cache-Control', 'public, max-age=3600');
    ctx.body = fs.createReadStream(path.join(assetDir, asset));
  },
);

import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { parseJson } from './json';

/**
 * The platform's version, from the nearest package.json above this module. Searched for rather than at a fixed depth:
 * the module runs from lib/ under `npm start` and from dist/lib/ in the built image, one level deeper.
 */
function readVersion(): string {
  for (let dir = __dirname; ; dir = dirname(dir)) {
    const file = join(dir, 'package.json');
    if (existsSync(file)) return (parseJson(readFileSync(file, 'utf8')) as { version: string }).version;
    if (dirname(dir) === dir) return '0.0.0';
  }
}

export const PLATFORM_VERSION = readVersion();

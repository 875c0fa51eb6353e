import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * A temporary directory for one test, inside the test platform's data directory when there is one: the global
 * teardown, and the interrupt handler of the global setup (Ctrl-C, SIGTERM), remove that directory, so an interrupted
 * run leaves nothing behind in the system's temporary folder either.
 */
export function testTempDir(prefix: string): string {
  const parent = process.env.TEST_PLATFORM_DATA_DIR ? path.join(process.env.TEST_PLATFORM_DATA_DIR, 'tmp') : os.tmpdir();
  fs.mkdirSync(parent, { recursive: true, mode: 0o755 });
  const dir = fs.mkdtempSync(path.join(parent, prefix));
  // Embedded PostgreSQL runs as its own user when we are root: it must be able to enter the directory.
  fs.chmodSync(dir, 0o755);
  return dir;
}

import fs from 'node:fs';
import path from 'node:path';

/**
 * Started by basePlatform() with a checkout's path: starts a throw-away platform from that checkout's own code
 * (its scripts/stack/platform.ts, so its API, worker and migrations), prints where it listens as one JSON line, and
 * stops it when the parent closes our stdin or sends SIGTERM.
 */
async function main(): Promise<void> {
  const dir = path.resolve(process.argv[2]);
  const stack = await import(path.join(dir, 'scripts/stack/platform.ts'));
  const platform = await stack.startThrowawayPlatform({ purpose: 'bench-base', env: JSON.parse(process.argv[3]) });
  const { apiUrl, databaseUrl, temporalAddress, credentials, dataDir } = platform;
  process.stdout.write(`${JSON.stringify({ apiUrl, databaseUrl, temporalAddress, credentials, dataDir })}\n`);
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    await platform.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
    process.exit(0);
  };
  process.stdin.on('end', stop);
  process.stdin.resume();
  process.on('SIGTERM', stop);
}

main().catch((error) => {
  process.stderr.write(`${String(error?.stack ?? error)}\n`);
  process.exit(1);
});

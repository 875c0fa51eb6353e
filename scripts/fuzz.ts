import fs from 'node:fs';
import path from 'node:path';
import { startThrowawayPlatform, type RunningPlatform } from './stack/platform';
import { runFuzzPasses } from './fuzz/passes';
import { ensureSchemathesis, fetchToken } from './fuzz/schemathesis';

/**
 * `npm run fuzz`: the long API fuzzing run. Starts its own platform on free 127.0.0.1 ports (or targets the one given
 * by FUZZ_API_URL + FUZZ_CLIENT_ID/FUZZ_CLIENT_SECRET), takes a token with every scope and runs schemathesis over every
 * operation of /api/openapi.json, twice (random identifiers, then identifiers of seeded resources). Exit code 0 means no 5xx and no response that breaks its documented schema.
 * Options: --max-examples N (default 100 per operation and phase), --seed N, and any other schemathesis flag after `--`.
 * Fails (exit 1) on any 5xx or schema mismatch, on a pass that did not select every operation, or when its own client
 * lost its token. `.ci/run` runs it after `npm test` with few examples and a fixed seed.
 */
async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const take = (flag: string) => {
    const at = argv.indexOf(flag);
    if (at < 0) return undefined;
    const [, value] = argv.splice(at, 2);
    return value;
  };
  const maxExamples = Number(take('--max-examples') ?? 100);
  const seed = take('--seed');
  const passthrough = argv.filter((a) => a !== '--');
  const cli = ensureSchemathesis();

  let platform: RunningPlatform | undefined;
  let dataDir: string | undefined;
  let apiUrl = process.env.FUZZ_API_URL;
  let clientId = process.env.FUZZ_CLIENT_ID;
  let clientSecret = process.env.FUZZ_CLIENT_SECRET;
  if (!apiUrl) {
    const started = await startThrowawayPlatform({
      purpose: 'fuzz',
      env: { ...process.env, LOG_LEVEL: 'warn', WEBHOOKS_ALLOWED_CIDRS: '127.0.0.0/8', WEBHOOKS_RETRY_FOR_MS: '30000' },
    });
    platform = started;
    dataDir = started.dataDir;
    process.stdout.write(`platform for the fuzzer up (logs: ${dataDir}/platform.log)\n`);
    apiUrl = platform.apiUrl;
    clientId = platform.credentials.clientId;
    clientSecret = platform.credentials.clientSecret;
  }
  if (!clientId || !clientSecret) throw new Error('FUZZ_API_URL needs FUZZ_CLIENT_ID and FUZZ_CLIENT_SECRET (a client with every scope)');
  let exitCode = 1;
  try {
    const token = await fetchToken(apiUrl, clientId, clientSecret);
    const reportDir = path.resolve('bench', 'results', 'fuzz');
    const results = await runFuzzPasses(cli, {
      apiUrl,
      token,
      maxExamples,
      protectedClients: [clientId],
      seed: seed === undefined ? undefined : Number(seed),
      reportDir,
      extraArgs: passthrough,
      onOutput: (chunk) => process.stdout.write(chunk),
    });
    const failures: string[] = [];
    for (const result of results) {
      process.stdout.write(`\n${result.pass}: schemathesis exit code ${result.exitCode}\n`);
      if (result.exitCode !== 0) failures.push(`${result.pass}: schemathesis exited ${result.exitCode}`);
      // Every operation of the document was exercised, not a filtered subset.
      const summary = result.output.slice(Math.max(0, result.output.lastIndexOf('SUMMARY')));
      const [, selected, total] = /Selected: (\d+)\/(\d+)/.exec(summary) ?? [];
      if (!selected || selected !== total || Number(selected) === 0)
        failures.push(`${result.pass}: operations selected ${selected ?? '?'} of ${total ?? '?'}`);
    }
    // The client whose token the fuzzer used survived the run (the hooks keep the fuzzer off it).
    try {
      await fetchToken(apiUrl, clientId, clientSecret);
    } catch (error) {
      failures.push(`the fuzzer's own client no longer gets a token: ${error instanceof Error ? error.message : error}`);
    }
    for (const failure of failures) process.stdout.write(`FAILED ${failure}\n`);
    exitCode = failures.length === 0 ? 0 : 1;
    process.stdout.write(`reports in ${reportDir}\n`);
  } finally {
    await platform?.stop();
    if (dataDir && exitCode === 0 && !process.env.KEEP_FUZZ_DATA) fs.rmSync(dataDir, { recursive: true, force: true });
  }
  process.exit(exitCode);
}

main().catch((error) => {
  console.error(`fuzz failed: ${error instanceof Error ? error.stack : error}`);
  process.exit(1);
});

import fs from 'node:fs';
import { runFuzzPasses } from '../../../scripts/fuzz/passes';
import { ensureSchemathesis } from '../../../scripts/fuzz/schemathesis';
import { apiUrl, getToken } from '../../support/http';
import { testTempDir } from '../../support/temp-dir';

/**
 * The short fuzzing run of `npm test`: schemathesis over every operation of /api/openapi.json on this run's stack,
 * authenticated with a token carrying every scope, a few examples per operation and phase (fixed seed, so a run is
 * reproducible; FUZZ_SEED and FUZZ_MAX_EXAMPLES override), once with random identifiers and once with identifiers of
 * seeded resources (scripts/fuzz/passes.ts). Any 5xx or any response that breaks its documented schema
 * fails the test. If schemathesis cannot be installed the test fails: it never skips. `npm run fuzz` is the long run.
 * The test sequencer runs this file last, so the data the fuzzer leaves behind cannot disturb other tests.
 */
// A liveness bound for a loaded machine (the run takes about two minutes on an idle one), not a timed assertion.
jest.setTimeout(900_000);

test('schemathesis finds no 5xx and no response-schema mismatch on any operation', async () => {
  const cli = ensureSchemathesis();
  const reportDir = testTempDir('fuzz-report-');
  const token = await getToken();
  const results = await runFuzzPasses(cli, {
    apiUrl: apiUrl(),
    token,
    maxExamples: Number(process.env.FUZZ_MAX_EXAMPLES || 6),
    seed: Number(process.env.FUZZ_SEED || 20261121),
    protectedClients: [process.env.TEST_CLIENT_ID as string],
    reportDir,
  });
  for (const result of results) {
    const summary = result.output.slice(Math.max(0, result.output.lastIndexOf('SUMMARY')));
    if (result.exitCode !== 0) {
      throw new Error(`${result.pass}: schemathesis exited ${result.exitCode} (reports in ${reportDir}); \`st ${result.args.join(' ')}\`\n${result.output}`);
    }
    // Every operation of the document was exercised, not a filtered subset.
    const [, selected, total] = /Selected: (\d+)\/(\d+)/.exec(summary) ?? [];
    expect(Number(selected)).toBeGreaterThan(0);
    expect(selected).toBe(total);
  }
  fs.rmSync(reportDir, { recursive: true, force: true });
  // The bootstrap client survived the run (the hooks keep the fuzzer off it).
  const response = await fetch(`${apiUrl()}/api/auth/oauth/token`, {
    method: 'POST',
    headers: {
      Authorization: `Basic ${Buffer.from(`${process.env.TEST_CLIENT_ID}:${process.env.TEST_CLIENT_SECRET}`).toString('base64')}`,
      'Content-Type': 'application/x-www-form-urlencoded',
    },
    body: new URLSearchParams({ grant_type: 'client_credentials' }),
  });
  expect(response.status).toBe(200);
});

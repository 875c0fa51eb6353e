import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { bundleWorkflowCode } from '@temporalio/worker';
import { dataConverter } from '../../lib/temporal';

declare global {
  var __WORKFLOW_TIER__: { dir: string } | undefined;
}

const noop = () => undefined;
const silent = { log: noop, trace: noop, debug: noop, info: noop, warn: noop, error: noop };

/**
 * The workflow tier needs no PostgreSQL, API or Temporal dev server: each test file starts Temporal's time-skipping
 * test server (test/workflows/support.ts). Here, once per run: find or build that server
 * (scripts/setup-temporal-test-server.sh; a failure fails the run, it never skips) and bundle the workflow code once,
 * as the worker does, so test files do not each spend seconds on webpack.
 */
export default async function globalSetup(): Promise<void> {
  const root = path.join(__dirname, '..', '..');
  process.env.TEMPORAL_TEST_SERVER = execFileSync('bash', [path.join(root, 'scripts', 'setup-temporal-test-server.sh')], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  }).trim();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'workflow-tier-'));
  const { code } = await bundleWorkflowCode({
    workflowsPath: require.resolve('../../workflows'),
    payloadConverterPath: dataConverter.payloadConverterPath,
    logger: silent,
  });
  const codePath = path.join(dir, 'workflow-bundle.js');
  fs.writeFileSync(codePath, code);
  process.env.TEST_WORKFLOW_BUNDLE = codePath;
  globalThis.__WORKFLOW_TIER__ = { dir };
}

import fs from 'node:fs';

/** Removes the workflow bundle the global setup wrote. */
export default async function globalTeardown(): Promise<void> {
  const state = globalThis.__WORKFLOW_TIER__;
  if (state) fs.rmSync(state.dir, { recursive: true, force: true });
}

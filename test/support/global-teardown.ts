import fs from 'node:fs';

/** Stops everything the global setup started and removes its data directory, so the run leaves nothing behind. */
export default async function globalTeardown(): Promise<void> {
  const state = globalThis.__PLATFORM__;
  if (!state) return;
  await state.closeControl();
  await state.platform.stop();
  await state.stopStripeMock();
  if (state.ownDataDir && !process.env.KEEP_TEST_DATA) fs.rmSync(state.dataDir, { recursive: true, force: true });
}

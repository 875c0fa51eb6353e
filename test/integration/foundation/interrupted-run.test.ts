import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { pollUntil } from '../../support/eventually';
import { testTempDir } from '../../support/temp-dir';
import { groupExited } from '../../support/process-group';

const root = path.resolve(__dirname, '../../..');

/** Ctrl-C during `npm test` stops the test platform and leaves no temporary directory behind. */
describe('an interrupted test run', () => {
  let child: ChildProcess;
  afterAll(() => {
    try {
      process.kill(-(child.pid as number), 'SIGKILL');
    } catch {
      /* already gone */
    }
  });

  it('stops its platform and removes its data and temporary directories on SIGINT', async () => {
    const report = path.join(testTempDir('interrupt-report-'), 'report.json');
    let output = '';
    // A jest run of its own, in its own process group as a terminal's foreground job is, on one fixture that waits.
    // The integration project: the one whose global setup starts the platform.
    child = spawn(
      'npx',
      [
        'jest',
        '--selectProjects',
        'integration',
        '--testMatch',
        '<rootDir>/test/fixtures/interrupt/waits.fixture.ts',
        '--testPathIgnorePatterns',
        '^$',
      ],
      {
        cwd: root,
        detached: true,
        env: { ...process.env, INTERRUPT_REPORT_FILE: report, TEST_DATA_DIR: '', KEEP_TEST_DATA: '' },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    child.stdout?.on('data', (chunk) => (output += chunk));
    child.stderr?.on('data', (chunk) => (output += chunk));
    const started = await pollUntil(
      () => (fs.existsSync(report) ? (JSON.parse(fs.readFileSync(report, 'utf8')) as { dataDir: string; dir: string }) : child.exitCode),
      (value) => typeof value === 'object' && value !== null,
      { timeoutMs: 120_000, intervalMs: 250, what: 'the inner run to reach its test' },
    ).catch((error) => {
      throw new Error(`${error}\n${output}`);
    });
    if (typeof started !== 'object' || started === null) throw new Error(output);
    expect(fs.existsSync(started.dir)).toBe(true);
    expect(started.dir.startsWith(started.dataDir)).toBe(true);

    // What a terminal does on Ctrl-C: SIGINT to every process of the foreground group.
    process.kill(-(child.pid as number), 'SIGINT');
    await pollUntil(() => child.exitCode !== null || child.signalCode !== null, Boolean, { timeoutMs: 60_000, what: 'the inner run to exit' });
    await pollUntil(() => !fs.existsSync(started.dataDir), Boolean, { timeoutMs: 30_000, what: `${started.dataDir} to be removed` });
    // Nothing of the inner run's platform is left running.
    await groupExited(child.pid as number, 'every process of the inner run to exit');
  }, 240_000);
});

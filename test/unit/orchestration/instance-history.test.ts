import fs from 'node:fs';
import path from 'node:path';
import { instanceHistoryOf } from '../../../db/orchestration/history';
import { historyFromFile } from '../../replay/history-file';

const histories = path.join(__dirname, '..', '..', 'replay', 'histories');
const eventsOf = (file: string) => historyFromFile(fs.readFileSync(path.join(histories, file), 'utf8')).events;

/**
 * Op 13 reads stage marks from two shapes of history: local-activity markers (current release) and the regular
 * `s<N>-start`/`s<N>-end` activities of runs started before `bookkeeping: 'local'`. Both recorded runs of
 * the same two-stage workflow (noop, then delay 200ms) must read the same.
 */
describe('op 13 from recorded histories', () => {
  it.each([['current', 'noop-delay.json'], ['previous release', 'legacy/noop-delay-v1.json']])('reads the stages of a %s run', (_label, file) => {
    const stages = instanceHistoryOf(eventsOf(file));
    expect(stages.map(({ name, input, terminated, error }) => ({ name, input, terminated, error }))).toEqual([
      { name: 'RunNoop', input: {}, terminated: true, error: undefined },
      { name: 'RunDelay', input: { duration: '200ms' }, terminated: true, error: undefined },
    ]);
    for (const stage of stages) expect(stage.terminatedAt!.getTime()).toBeGreaterThanOrEqual(stage.startedAt.getTime());
    expect(stages[1].terminatedAt!.getTime() - stages[1].startedAt.getTime()).toBeGreaterThanOrEqual(200);
  });

  it('reports the error of a stage that failed, in both shapes', () => {
    for (const file of ['invalid-stage.json', 'legacy/invalid-stage-v1.json']) {
      const [first, ...rest] = instanceHistoryOf(eventsOf(file));
      expect(first).toMatchObject({ name: 'RunDelay', terminated: true, error: expect.stringContaining('duration') });
      expect(rest).toEqual([]);
    }
  });
});

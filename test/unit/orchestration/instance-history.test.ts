import fs from 'node:fs';
import path from 'node:path';
import { instanceHistoryOf } from '../../../db/orchestration/history';
import { historyFromFile } from '../../replay/history-file';

const histories = path.join(__dirname, '..', '..', 'replay', 'histories');
const eventsOf = (file: string) => historyFromFile(fs.readFileSync(path.join(histories, file), 'utf8')).events;

/**
 * Op 13 reads stage marks from every shape of history: stage 0's start in the workflow input and a stage's end in its
 * last step's result (`execution: 'local-first'`, current), local-activity markers (`bookkeeping: 'local'`, frozen as
 * legacy v2) and the regular `s<N>-start`/`s<N>-end` activities of the first release (legacy v1). Recorded runs of
 * the same workflows must read the same in every shape.
 */
describe('op 13 from recorded histories', () => {
  it.each([['current', 'noop-delay.json'], ['local bookkeeping', 'legacy/noop-delay-v2.json'], ['first release', 'legacy/noop-delay-v1.json']])('reads the stages of a %s run', (_label, file) => {
    const stages = instanceHistoryOf(eventsOf(file));
    expect(stages.map(({ name, input, terminated, error }) => ({ name, input, terminated, error }))).toEqual([
      { name: 'RunNoop', input: {}, terminated: true, error: undefined },
      { name: 'RunDelay', input: { duration: '200ms' }, terminated: true, error: undefined },
    ]);
    for (const stage of stages) expect(stage.terminatedAt!.getTime()).toBeGreaterThanOrEqual(stage.startedAt.getTime());
    expect(stages[1].terminatedAt!.getTime() - stages[1].startedAt.getTime()).toBeGreaterThanOrEqual(200);
  });

  it('reports the error of a stage that failed, in both shapes', () => {
    for (const file of ['invalid-stage.json', 'legacy/invalid-stage-v2.json', 'legacy/invalid-stage-v1.json']) {
      const [first, ...rest] = instanceHistoryOf(eventsOf(file));
      expect(first).toMatchObject({ name: 'RunDelay', terminated: true, error: expect.stringContaining('duration') });
      expect(rest).toEqual([]);
    }
  });

  it('reads a send whose end its last step carried as the same stage as a send framed by local activities', () => {
    const [current, v2] = ['send-cross-ledger.json', 'legacy/send-cross-ledger-v2.json'].map((file) => instanceHistoryOf(eventsOf(file)));
    expect(current).toHaveLength(1);
    expect(current[0]).toMatchObject({ name: 'RunSend', terminated: true });
    expect(current[0].error).toBeUndefined();
    expect(Object.keys(current[0].input as object).sort()).toEqual(Object.keys(v2[0].input as object).sort());
    expect(current[0].terminatedAt!.getTime()).toBeGreaterThan(current[0].startedAt.getTime());
  });
});

import fs from 'node:fs';
import path from 'node:path';
import { instanceHistoryOf, stageHistoryOf } from '../../../areas/orchestration/history';
import { historyFromFile } from '../../replay/history-file';

const histories = path.join(__dirname, '..', '..', 'replay', 'histories');
const eventsOf = (file: string) => historyFromFile(fs.readFileSync(path.join(histories, file), 'utf8')).events;

/**
 * Op 13 reads a stage's bounds from wherever the one protocol records them: stage 0's start in the workflow input, a
 * later stage's start and a step-less, failed or aborted stage's end in bookkeeping markers, a stage's successful end
 * in its last step's result. Cases from the committed replay histories, so they follow every re-recording.
 */
describe('op 13 from recorded histories', () => {
  it('reads stage 0 from the input and a step-less stage from the bookkeeping markers', () => {
    const stages = instanceHistoryOf(eventsOf('noop-delay.json'));
    expect(stages.map(({ name, input, terminated, error }) => ({ name, input, terminated, error }))).toEqual([
      { name: 'RunNoop', input: {}, terminated: true, error: undefined },
      { name: 'RunDelay', input: { duration: '200ms' }, terminated: true, error: undefined },
    ]);
    for (const stage of stages) expect(stage.terminatedAt!.getTime()).toBeGreaterThanOrEqual(stage.startedAt.getTime());
    expect(stages[1].terminatedAt!.getTime() - stages[1].startedAt.getTime()).toBeGreaterThanOrEqual(200);
  });

  it('reports the error of a stage that failed, and no later stage', () => {
    const [first, ...rest] = instanceHistoryOf(eventsOf('invalid-stage.json'));
    expect(first).toMatchObject({ name: 'RunDelay', terminated: true, error: expect.stringContaining('duration') });
    expect(rest).toEqual([]);
  });

  it('reports an aborted stage as canceled', () => {
    const stages = instanceHistoryOf(eventsOf('abort-waiting.json'));
    expect(stages.map(({ name, terminated, error }) => ({ name, terminated, error }))).toEqual([
      { name: 'RunWaitEvent', terminated: true, error: 'canceled' },
    ]);
  });

  it('ends a send with the end its last step carried, local or regular', () => {
    for (const file of ['send-cross-ledger.json', 'send-retry-until-funded.json']) {
      const [stage, ...rest] = instanceHistoryOf(eventsOf(file));
      expect(stage).toMatchObject({ name: 'RunSend', terminated: true });
      expect(stage.error).toBeUndefined();
      expect(Object.keys(stage.input as object).sort()).toEqual(['amount', 'destination', 'metadata', 'source']);
      expect(stage.terminatedAt!.getTime()).toBeGreaterThan(stage.startedAt.getTime());
      expect(rest).toEqual([]);
    }
  });

  it('reads every recorded instance history in causal order: each stage ends after it starts and starts after the previous one ended', () => {
    const files = fs.readdirSync(histories).filter((file) => /^(abort|invalid|no-stage|noop|send|trigger|wait)/.test(file));
    expect(files.length).toBeGreaterThan(5);
    for (const file of files) {
      const stages = instanceHistoryOf(eventsOf(file));
      stages.forEach((stage, n) => {
        if (stage.terminatedAt) expect(stage.terminatedAt.getTime()).toBeGreaterThanOrEqual(stage.startedAt.getTime());
        if (n > 0) expect(stage.startedAt.getTime()).toBeGreaterThanOrEqual(stages[n - 1].terminatedAt!.getTime());
      });
    }
  });

  it('ends, in op 14, a step whose activity the abort cancelled while it waited for a retry (its history closes no activity)', () => {
    const events = eventsOf('abort-send-retrying.json');
    const [step, ...rest] = stageHistoryOf(events, 0)!;
    expect(step).toMatchObject({ name: 'CreateTransaction', terminated: true, error: 'canceled' });
    expect(rest).toEqual([]);
    const [stage] = instanceHistoryOf(events);
    expect(stage).toMatchObject({ terminated: true, error: 'canceled' });
    expect(step.terminatedAt!.getTime()).toBeLessThanOrEqual(stage.terminatedAt!.getTime());
  });
});

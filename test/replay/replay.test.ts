import fs from 'node:fs';
import path from 'node:path';
import { bundleWorkflowCode, Worker, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { dataConverter } from '../../lib/temporal';
import * as workflows from '../../workflows';
import { historyFromFile } from './history-file';
import { historyNames } from './scenarios';

const dir = path.join(__dirname, 'histories');
/**
 * One history per scenario (`<name>.json`, rewritten by `npm run replay:record`) and, after a patched() change, the
 * previous shape kept as `<name>@<release>.json` until no run of it can be in flight (docs/orchestration.md).
 */
const committed = () =>
  fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .map((f) => f.replace(/\.json$/, ''));

/**
 * Replays every committed history against today's workflow code: a change that would break running workflows (a
 * non-deterministic change to any workflow type) fails here. Record the new shape with `npm run replay:record` after
 * an intended, versioned change.
 */
describe('replay of committed workflow histories', () => {
  let bundle: WorkflowBundleWithSourceMap;
  beforeAll(async () => {
    // The payload converter runs inside the workflow sandbox, so it is part of the bundle, as in the worker.
    bundle = await bundleWorkflowCode({
      workflowsPath: require.resolve('../../workflows'),
      payloadConverterPath: dataConverter.payloadConverterPath,
      logger: silent,
    });
  }, 120_000);

  it('has a committed history for every scenario, and none of a scenario that is gone', () => {
    const files = committed();
    expect(historyNames().filter((name) => !files.includes(name))).toEqual([]);
    expect(files.filter((file) => !historyNames().includes(file.split('@')[0]))).toEqual([]);
  });

  it('covers every workflow type the worker registers', () => {
    const registered = Object.keys(workflows);
    const recorded = new Set(historyNames().map((name) => workflowTypeOf(name)));
    expect(registered.filter((type) => !recorded.has(type))).toEqual([]);
  });

  it('replays each history without non-determinism', async () => {
    const histories = committed().map((name) => ({
      workflowId: name,
      history: historyFromFile(fs.readFileSync(path.join(dir, `${name}.json`), 'utf8')),
    }));
    const results: Array<{ workflowId: string; error?: unknown }> = [];
    for await (const result of Worker.runReplayHistories({ workflowBundle: bundle, dataConverter }, histories)) results.push(result);
    expect(results.map((r) => [r.workflowId, r.error ? String(r.error) : 'ok'])).toEqual(histories.map((h) => [h.workflowId, 'ok']));
  }, 120_000);
});

function workflowTypeOf(name: string): string | null | undefined {
  const history = historyFromFile(fs.readFileSync(path.join(dir, `${name}.json`), 'utf8'));
  return history.events[0]?.workflowExecutionStartedEventAttributes?.workflowType?.name;
}

const noop = () => undefined;
const silent = { log: noop, trace: noop, debug: noop, info: noop, warn: noop, error: noop };

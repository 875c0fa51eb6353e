import fs from 'node:fs';
import path from 'node:path';
import { bundleWorkflowCode, Worker, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { dataConverter } from '../../lib/temporal';
import * as workflows from '../../workflows';
import { historyFromFile } from './history-file';
import { historyNames } from './scenarios';

const dir = path.join(__dirname, 'histories');
/**
 * Histories of earlier versions of a workflow, frozen when a versioned change (patched(), a new input field) was
 * re-recorded: runs started before the change are still running somewhere, so today's code must replay them too.
 * Never regenerated; `npm run replay:record` only rewrites the files of `dir`.
 */
const legacyDir = path.join(dir, 'legacy');
const legacyNames = () => (fs.existsSync(legacyDir) ? fs.readdirSync(legacyDir).filter((f) => f.endsWith('.json')).map((f) => `legacy/${f.replace(/\.json$/, '')}`) : []);

/**
 * Replays the committed histories of every recorded scenario against today's workflow code: a change that would
 * break running workflows (a non-deterministic change to any workflow type) fails here. Regenerate the files
 * with `npm run replay:record` after an intended, versioned change.
 */
describe('replay of committed workflow histories', () => {
  let bundle: WorkflowBundleWithSourceMap;
  beforeAll(async () => {
    // The payload converter runs inside the workflow sandbox, so it is part of the bundle, as in the worker.
    bundle = await bundleWorkflowCode({ workflowsPath: require.resolve('../../workflows'), payloadConverterPath: dataConverter.payloadConverterPath, logger: silent });
  }, 120_000);

  it('has a committed history for every scenario', () => {
    const files = fs.readdirSync(dir).filter((f) => f.endsWith('.json')).map((f) => f.replace(/\.json$/, ''));
    expect(files.sort()).toEqual(historyNames().sort());
  });

  it('covers every workflow type the worker registers', () => {
    const registered = Object.keys(workflows);
    const recorded = new Set([...historyNames(), ...legacyNames()].map((name) => workflowTypeOf(name)));
    expect(registered.filter((type) => !recorded.has(type))).toEqual([]);
  });

  it('replays each history, current and legacy, without non-determinism', async () => {
    const histories = [...historyNames(), ...legacyNames()].map((name) => ({
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

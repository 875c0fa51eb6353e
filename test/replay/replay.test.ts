import fs from 'node:fs';
import path from 'node:path';
import { bundleWorkflowCode, Worker, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { dataConverter } from '../../lib/temporal';
import { historyFromFile } from './history-file';
import { scenarios } from './scenarios';

const dir = path.join(__dirname, 'histories');

/**
 * Replays the committed histories of every recorded scenario against today's workflow code: a change that would
 * break running instances (a non-deterministic change to the instance workflow) fails here. Regenerate the files
 * with `npm run replay:record` after an intended, versioned change.
 */
describe('replay of committed orchestration histories', () => {
  let bundle: WorkflowBundleWithSourceMap;
  beforeAll(async () => {
    // The payload converter runs inside the workflow sandbox, so it is part of the bundle, as in the worker.
    bundle = await bundleWorkflowCode({ workflowsPath: require.resolve('../../workflows'), payloadConverterPath: dataConverter.payloadConverterPath, logger: silent });
  }, 120_000);

  it('has a committed history for every scenario', () => {
    const files = fs.readdirSync(dir).filter((f) => f.endsWith('.json')).map((f) => f.replace(/\.json$/, ''));
    expect(files.sort()).toEqual(Object.keys(scenarios).sort());
  });

  it('replays each history without non-determinism', async () => {
    const histories = Object.keys(scenarios).map((name) => ({
      workflowId: name,
      history: historyFromFile(fs.readFileSync(path.join(dir, `${name}.json`), 'utf8')),
    }));
    const results: Array<{ workflowId: string; error?: unknown }> = [];
    for await (const result of Worker.runReplayHistories({ workflowBundle: bundle, dataConverter }, histories)) results.push(result);
    expect(results.map((r) => [r.workflowId, r.error ? String(r.error) : 'ok'])).toEqual(histories.map((h) => [h.workflowId, 'ok']));
  }, 120_000);
});

const noop = () => undefined;
const silent = { log: noop, trace: noop, debug: noop, info: noop, warn: noop, error: noop };

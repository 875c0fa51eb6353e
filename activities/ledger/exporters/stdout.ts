import type { ExportedLog } from '../../../areas/ledger';
import { stringifyJson } from '../../../lib/json';

/**
 * The stdout driver: each log as one JSON line on the worker's standard output, the log as the http driver sends it
 * (`{ledger, id, type, date, data, hash}`) under `log`, with the pipeline it came through, so a log shipper reading the
 * worker's output can tell these lines from the worker's own (which carry `level` and `msg`). A batch retried after a
 * crash between the write and the saved position is written again: readers dedupe by (ledger, id).
 */
export async function deliverStdoutBatch(pipelineId: string, logs: ExportedLog[], out: NodeJS.WritableStream = process.stdout): Promise<void> {
  const text = logs.map((log) => stringifyJson({ exporter: 'stdout', pipelineID: pipelineId, log })).join('\n') + '\n';
  // Wait for the stream to take the lines (backpressure), so the position only advances over logs actually written.
  await new Promise<void>((resolve, reject) => out.write(text, (error) => (error ? reject(error) : resolve())));
}

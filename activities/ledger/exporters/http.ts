import type { ExportedLog, HttpExporterConfig } from '../../../areas/ledger';
import { stringifyJson } from '../../../lib/json';
import { guardedRequest } from '../../payments/plugins/guarded-request';

/** The whole exchange of one batch, connect to last byte. */
const TIMEOUT_MS = 10_000;

/**
 * The HTTP driver: POSTs each batch as Formance's does, a JSON array of logs with their ledger, through the SSRF guard
 * of every outbound call (WEBHOOKS_ALLOWED_CIDRS). A batch is delivered when the receiver answers 2xx; anything else is
 * retried, with the same logs. The first and last log ids (and the pipeline) are in headers, so a receiver dedupes a
 * batch it already stored by log id: after a crash between its answer and our bookkeeping, or after a reset, it sees
 * logs again.
 */
export async function deliverHttpBatch(config: HttpExporterConfig, pipelineId: string, logs: ExportedLog[]): Promise<void> {
  const response = await guardedRequest(config.url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-ledger-pipeline-id': pipelineId,
      'x-ledger-first-log-id': logs[0].id.toString(),
      'x-ledger-last-log-id': logs[logs.length - 1].id.toString(),
    },
    body: stringifyJson(logs),
    timeoutMs: TIMEOUT_MS,
  });
  if (response.status < 200 || response.status > 299) throw new Error(`exporter answered ${response.status}, expected 2xx`);
}

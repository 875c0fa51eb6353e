import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** One span as an OTLP/HTTP JSON export carries it, ids as lower-case hex. */
export interface ReceivedSpan {
  service: string;
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  kind: number;
  attributes: Record<string, unknown>;
  links: Array<{ traceId: string; spanId: string }>;
}

interface OtlpValue {
  stringValue?: string;
  intValue?: string | number;
  doubleValue?: number;
  boolValue?: boolean;
}

/** The exporter writes ids as hex in JSON; base64 (the protobuf JSON mapping) is read too. */
const hexId = (id: string | undefined): string => (!id ? '' : /^[0-9a-f]+$/i.test(id) ? id.toLowerCase() : Buffer.from(id, 'base64').toString('hex'));

const attributeMap = (list: Array<{ key: string; value: OtlpValue }> = []): Record<string, unknown> =>
  Object.fromEntries(
    list.map(({ key, value }) => [
      key,
      value.stringValue ?? (value.intValue !== undefined ? Number(value.intValue) : (value.doubleValue ?? value.boolValue)),
    ]),
  );

/**
 * An OTLP/HTTP trace receiver on 127.0.0.1 for tests: decodes the JSON exports (OTEL_EXPORTER_OTLP_PROTOCOL=http/json)
 * POSTed to /v1/traces and keeps every span, and counts every request it gets, whatever its path.
 */
export async function startOtlpReceiver(): Promise<{ url: string; spans: ReceivedSpan[]; requests: () => number; close(): Promise<void> }> {
  const spans: ReceivedSpan[] = [];
  let requests = 0;
  const server = http.createServer((req, res) => {
    requests += 1;
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/v1/traces' || !String(req.headers['content-type']).startsWith('application/json')) {
        res.writeHead(415).end();
        return;
      }
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      for (const resourceSpans of body.resourceSpans ?? []) {
        const service = String(attributeMap(resourceSpans.resource?.attributes)['service.name']);
        for (const scopeSpans of resourceSpans.scopeSpans ?? []) {
          for (const span of scopeSpans.spans ?? []) {
            spans.push({
              service,
              traceId: hexId(span.traceId),
              spanId: hexId(span.spanId),
              parentSpanId: hexId(span.parentSpanId),
              name: span.name,
              kind: span.kind,
              attributes: attributeMap(span.attributes),
              links: (span.links ?? []).map((link: { traceId: string; spanId: string }) => ({
                traceId: hexId(link.traceId),
                spanId: hexId(link.spanId),
              })),
            });
          }
        }
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    spans,
    requests: () => requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

import {
  context,
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Context,
  type Link,
  type Span,
  type SpanContext,
  type Tracer,
} from '@opentelemetry/api';
import type { Resource } from '@opentelemetry/resources';
import type { SpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { TracingSettings } from './config';

/**
 * OpenTelemetry tracing of one process (docs/operations.md, Observability). Off unless an OTLP endpoint is configured:
 * then no SDK module is even loaded, no context manager (an AsyncLocalStorage, whose promise hooks would cost every
 * request) is installed, and every helper below is a plain call of its function. On, it installs the Node tracer
 * provider (AsyncLocalStorage context, W3C trace context and baggage propagation), the pg instrumentation (one span
 * per SQL statement, only inside a traced operation), and a batching OTLP/HTTP exporter.
 */

export interface RunningTracing {
  /** The processor the Temporal workflow span sink exports through (workflow spans are made in the sandbox). */
  spanProcessor: SpanProcessor;
  resource: Resource;
  /** Exports what is buffered and stops; spans ended after it are dropped. */
  shutdown(): Promise<void>;
}

let running: RunningTracing | undefined;
let tracer: Tracer | undefined;

/** Whether this process traces. Checked before any span work so that off costs nothing. */
export const tracingEnabled = (): boolean => tracer !== undefined;

/**
 * Starts tracing for this process when `settings` is given; call it before the database and Temporal clients are made
 * (the pg instrumentation patches the driver as knex loads it). Idempotent.
 */
export function startTracing(settings: TracingSettings | undefined, serviceName: string): RunningTracing | undefined {
  if (!settings || running) return running;
  // Required here, not imported: with tracing off no SDK code is loaded.
  const { NodeTracerProvider } = require('@opentelemetry/sdk-trace-node') as typeof import('@opentelemetry/sdk-trace-node');
  const { BatchSpanProcessor, ParentBasedSampler, TraceIdRatioBasedSampler } =
    require('@opentelemetry/sdk-trace-base') as typeof import('@opentelemetry/sdk-trace-base');
  const { Resource } = require('@opentelemetry/resources') as typeof import('@opentelemetry/resources');
  const { registerInstrumentations } = require('@opentelemetry/instrumentation') as typeof import('@opentelemetry/instrumentation');
  const { PgInstrumentation } = require('@opentelemetry/instrumentation-pg') as typeof import('@opentelemetry/instrumentation-pg');
  const exporterOptions = { url: settings.tracesUrl, headers: settings.headers, timeoutMillis: 10_000 };
  const exporter =
    settings.protocol === 'http/json'
      ? new (require('@opentelemetry/exporter-trace-otlp-http') as typeof import('@opentelemetry/exporter-trace-otlp-http')).OTLPTraceExporter(
          exporterOptions,
        )
      : new (require('@opentelemetry/exporter-trace-otlp-proto') as typeof import('@opentelemetry/exporter-trace-otlp-proto')).OTLPTraceExporter(
          exporterOptions,
        );
  // Resource.default() would read OTEL_RESOURCE_ATTRIBUTES and OTEL_SERVICE_NAME itself: the settings module did.
  const resource = new Resource({ ...settings.resourceAttributes, 'service.name': settings.serviceName ?? serviceName });
  // Short delay and a bounded queue: spans of a burst are dropped rather than held in memory when the collector is slow.
  const spanProcessor = new BatchSpanProcessor(exporter, { scheduledDelayMillis: 1000, maxQueueSize: 4096, maxExportBatchSize: 512 });
  const provider = new NodeTracerProvider({
    resource,
    mergeResourceWithDefaults: false,
    sampler: new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(settings.sampleRatio) }),
    spanProcessors: [spanProcessor],
  });
  provider.register();
  // requireParentSpan: the background loops' polls (outbox, hasher, sweeps) are not traced operations, and a root span
  // per poll would bury the requests' traces.
  registerInstrumentations({
    tracerProvider: provider,
    instrumentations: [new PgInstrumentation({ requireParentSpan: true, enhancedDatabaseReporting: false })],
  });
  tracer = provider.getTracer('financial-platform');
  running = { spanProcessor, resource, shutdown: () => provider.shutdown() };
  return running;
}

/** The span context of the caller's active span (for a span link), when tracing is on and a span is active. */
export function activeSpanContext(): SpanContext | undefined {
  if (!tracer) return undefined;
  return trace.getActiveSpan()?.spanContext();
}

/** The active trace's id, for log lines; undefined when tracing is off or nothing is traced here. */
export function activeTraceId(): string | undefined {
  return activeSpanContext()?.traceId;
}

export interface SpanOptions {
  kind?: SpanKind;
  attributes?: Attributes;
  links?: Link[];
  /** A new trace rather than a child of the active span (a batch serving several traces links them instead). */
  root?: boolean;
  /** The parent, instead of the active span. */
  parent?: SpanContext;
}

/**
 * Runs `fn` inside a span named `name` (ended when `fn` settles; an error marks it failed and is rethrown). With
 * tracing off it is `fn()`.
 */
export function withSpan<T>(name: string, options: SpanOptions, fn: (span: Span | undefined) => Promise<T>): Promise<T> {
  if (!tracer) return fn(undefined);
  const parent = options.parent ? trace.setSpanContext(context.active(), options.parent) : context.active();
  const span = tracer.startSpan(
    name,
    { kind: options.kind ?? SpanKind.INTERNAL, attributes: options.attributes, links: options.links, root: options.root },
    parent,
  );
  return context.with(trace.setSpan(parent, span), () =>
    fn(span).then(
      (value) => {
        span.end();
        return value;
      },
      (error: unknown) => {
        span.recordException(error instanceof Error ? error : String(error));
        span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
        span.end();
        throw error;
      },
    ),
  );
}

/** An HTTP request's server span, child of the caller's `traceparent` when it sent a valid one. */
export function startServerSpan(
  name: string,
  headers: Record<string, string | string[] | undefined>,
  attributes: Attributes,
): { span: Span; context: Context } | undefined {
  if (!tracer) return undefined;
  const parent = propagation.extract(ROOT_CONTEXT, headers);
  const span = tracer.startSpan(name, { kind: SpanKind.SERVER, attributes }, parent);
  return { span, context: trace.setSpan(parent, span) };
}

/** Runs `fn` in `ctx` (a span's context from startServerSpan). */
export function runInContext<T>(ctx: Context, fn: () => T): T {
  return context.with(ctx, fn);
}

/**
 * An outbound HTTP call's client span (a webhook delivery, a provider or exporter request): `{method}` named, with the
 * server, path and `url.full` but never the query string (a provider's API key or a webhook's token may ride in it)
 * nor the URL's credentials. No `traceparent` is sent: trace ids stay internal to the platform. The status comes from the result;
 * a status of 0 (no answer) or >= 400, or a thrown error, marks the span failed. With tracing off it is `call()`.
 */
export function tracedHttpCall<T>(method: string, url: string, call: () => Promise<T>, statusOf: (result: T) => number): Promise<T> {
  if (!tracer) return call();
  let target: URL | undefined;
  try {
    target = new URL(url);
  } catch {
    target = undefined;
  }
  const attributes: Attributes = { 'http.request.method': method };
  if (target) {
    Object.assign(attributes, {
      'server.address': target.hostname,
      'server.port': Number(target.port) || (target.protocol === 'https:' ? 443 : 80),
      'url.path': target.pathname,
      // `host` rather than the whole href: no `user:password@`, no `?query`, no `#fragment`.
      'url.full': `${target.protocol}//${target.host}${target.pathname}`,
    });
  }
  return withSpan(method, { kind: SpanKind.CLIENT, attributes }, async (span) => {
    const result = await call();
    const status = statusOf(result);
    span?.setAttribute('http.response.status_code', status);
    if (status === 0 || status >= 400) span?.setStatus({ code: SpanStatusCode.ERROR });
    return result;
  });
}

export { SpanKind, SpanStatusCode, type Span, type SpanContext };

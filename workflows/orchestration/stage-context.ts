import { ActivityFailure, ApplicationFailure, proxyActivities } from '@temporalio/workflow';
import type { OrchestrationActivities } from '../../activities/orchestration';
import { BUSINESS_ACTIVITY_OPTIONS } from './retry';

type Activities = OrchestrationActivities;

/**
 * Runs the activities of stage `number`. Each gets the id `s<number>-<k>-<Name>`: op 14 selects a stage's activities
 * by that prefix, an operator reads stage and step in the Web UI, and the id (hence the idempotency key derived from
 * it) is the same on every replay because k counts calls in program order.
 */
export class StageContext {
  private calls = 0;

  constructor(readonly number: number) {}

  call<K extends keyof Activities>(name: K, ...args: Parameters<Activities[K]>): Promise<Awaited<ReturnType<Activities[K]>>> {
    this.calls += 1;
    const activityId = `s${this.number}-${this.calls}-${String(name)}`;
    const proxy = proxyActivities<Activities>({ ...BUSINESS_ACTIVITY_OPTIONS, activityId, summary: `stage ${this.number}: ${String(name)}` });
    const activity = proxy[name] as unknown as (...a: Parameters<Activities[K]>) => Promise<Awaited<ReturnType<Activities[K]>>>;
    return activity(...args);
  }
}

/** The message a stage reports for a failure: the business error's own message, not the SDK's wrapper. */
export function failureMessage(error: unknown): string {
  if (error instanceof ActivityFailure && error.cause) return error.cause.message;
  if (error instanceof Error) return error.message;
  return String(error);
}

/** The ApiError code an activity failed with (its ApplicationFailure type), if any. */
export function failureCode(error: unknown): string | undefined {
  const cause = error instanceof ActivityFailure ? error.cause : error;
  return cause instanceof ApplicationFailure ? (cause.type ?? undefined) : undefined;
}

/** A stage failure decided by the workflow itself (e.g. a wallet name that matches nothing). */
export const stageFailure = (message: string, code = 'VALIDATION') => ApplicationFailure.nonRetryable(message, code);

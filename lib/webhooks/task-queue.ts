/**
 * The task queue of webhook workflows and activities: the platform's queue name with `-webhooks` appended. Derived
 * rather than configured, so a workflow (which cannot read settings) routes its webhook activities to the same queue
 * the worker polls. Its own queue gives webhook work its own worker slots: a dead or slow endpoint cannot fill the
 * slots the other areas' workflows and activities need.
 */
export function webhookTaskQueue(platformTaskQueue: string): string {
  return `${platformTaskQueue}-webhooks`;
}

/**
 * A workflow that does nothing: the benchmarks' floor for "start a workflow and wait for its result" on a given
 * Temporal server, against which orchestration runs are compared.
 */
export async function platformNoop(): Promise<void> {
  return;
}

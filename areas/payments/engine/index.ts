/**
 * Every Temporal call of the payments area. Ids are deterministic and readable: a connector's schedules, their runs
 * and its tasks start with `connector-<provider>-<name>-<short reference>`, an initiation's run is
 * `payment-initiation-<id>-<attempt>`; each carries a static summary for the Temporal UI and the search attributes
 * PlatformArea = "payments" and ConnectorID (the wire id). One folder rather than one file for its size: the
 * connectors' schedules and tasks, the tasks of initiations, bank accounts and users, and open banking.
 */
export {
  createConnectorSchedules,
  deleteConnectorSchedules,
  describeSchedule,
  listScheduleRuns,
  runFailure,
  setConnectorPollingPeriod,
  startConnectorTask,
  type ScheduleState,
  type WorkflowRun,
} from './connectors';
export {
  awaitLinkCompletion,
  runPaymentServiceUserForward,
  startLinkCompletion,
  startConnectionDelete,
  startPsuConnectorDelete,
} from './open-banking';
export {
  awaitTaskRun,
  describeTaskRun,
  startBankAccountForward,
  startInitiationExecution,
  startPaymentServiceUserDelete,
  startReversalExecution,
  TASK_WORKFLOW_TYPES,
  type TaskRun,
  type WaitedRun,
} from './tasks';
export { startConnectorCallback } from './callbacks';
export {
  connectorTaskId,
  forwardWorkflowId,
  initiationWorkflowId,
  reversalWorkflowId,
  scheduleIdOf,
  type ConnectorRef,
  type ConnectorTask,
} from './workflow-ids';

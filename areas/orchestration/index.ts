/**
 * The orchestration area's in-process API: workflow definitions, instances (started, signalled and aborted through
 * engine.ts) and their history, triggers and their occurrences. Routes and activities import only this file.
 */
export { readInstanceHistory, readStageHistory, v1StageHistory } from './history';
export { inInstanceFence } from './fence';
export { abortInstance, getInstance, listInstances, runWorkflow, sendEvent } from './instances';
export { recordInstanceEnded, recordStageEnded, recordStageStarted, type StageMark } from './read-model';
export { listOccurrences, matchTriggers, presentOccurrence } from './trigger-occurrences';
export { createTrigger, deleteTrigger, getTriggerRow, listTriggers, presentTrigger, testTrigger } from './triggers';
export { createWorkflow, deleteWorkflow, getWorkflow, listWorkflows, presentWorkflow } from './workflows';
export { checkExpression, evaluateFilter } from './expressions';

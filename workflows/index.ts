// The worker's workflow bundle entry point: every workflow type is exported from here.
export { platformSelfTest } from './self-test';
export { orchestrationInstance } from './orchestration/instance';

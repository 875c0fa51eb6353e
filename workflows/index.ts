// The worker's workflow bundle entry point: every workflow type is exported from here.
export { platformSelfTest } from './self-test';
export { processEvent } from './events/process-event';
export { deliverWebhook } from './webhooks/deliver-webhook';
export { testWebhook } from './webhooks/test-webhook';

import { ApplicationFailure } from '@temporalio/common';

/** The plugin contract lives with the payments area (areas/payments/connectors/plugin-contract.ts), which reads it. */
export type {
  BankAccountRequest,
  ConnectorPlugin,
  ConnectorPluginModule,
  FetchPage,
  InitiationRequest,
  OpenBankingConnectionData,
  OpenBankingPlugin,
  OpenBankingUser,
  ReversalRequest,
  WebhookEndpoint,
  WebhookRows,
} from '../../../areas/payments';

/** A definitive refusal by the provider: not retried, its message kept for the task or initiation error. */
export const providerRejected = (message: string) => ApplicationFailure.create({ type: 'PROVIDER_REJECTED', message, nonRetryable: true });
/** Provider data the platform cannot read: not retried. */
export const invalidData = (message: string) => ApplicationFailure.create({ type: 'INVALID_ARGUMENT', message, nonRetryable: true });

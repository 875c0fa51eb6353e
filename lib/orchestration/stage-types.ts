/** The shapes of workflow configurations and of resolved stages (what history shows as a stage's input). */

export const STAGE_TYPES = ['send', 'delay', 'wait_event', 'update', 'noop'] as const;
export type StageType = (typeof STAGE_TYPES)[number];

/** The longest event name POST /instances/{id}/events takes: a wait_event on a longer one could never end. */
export const EVENT_NAME_MAX_LENGTH = 500;

export interface WorkflowConfig {
  name?: string;
  stages: Array<Record<string, unknown>>;
}

export interface AccountRef {
  id: string;
  ledger: string;
}
export interface WalletRef {
  id?: string;
  name?: string;
  balance: string;
}
export interface PaymentSourceRef {
  id: string;
}
export interface PaymentDestinationRef {
  psp: string;
  metadata: string;
  waitingValidation: boolean;
  connectorId?: string;
}

export interface SendStage {
  source: { account?: AccountRef; wallet?: WalletRef; payment?: PaymentSourceRef };
  destination: { account?: AccountRef; wallet?: WalletRef; payment?: PaymentDestinationRef };
  amount?: { asset: string; amount: bigint };
  metadata: Record<string, string>;
  timestamp?: string;
}
export interface DelayStage {
  duration?: string;
  until?: string;
}
export interface WaitEventStage {
  event: string;
}
export interface UpdateStage {
  account: { id: string; ledger: string; metadata: Record<string, string> };
}

export type ResolvedStage =
  | { type: 'send'; spec: SendStage }
  | { type: 'delay'; spec: DelayStage }
  | { type: 'wait_event'; spec: WaitEventStage }
  | { type: 'update'; spec: UpdateStage }
  | { type: 'noop'; spec: Record<string, never> };

/** A config error with the path of the offending field, e.g. `stages[1].send.source`. */
export class ConfigError extends Error {
  constructor(
    readonly path: string,
    message: string,
  ) {
    super(`${path}: ${message}`);
    this.name = 'ConfigError';
  }
}

import {
  ConfigError,
  STAGE_TYPES,
  type AccountRef,
  type PaymentDestinationRef,
  type ResolvedStage,
  type SendStage,
  type StageType,
  type WalletRef,
} from './stage-types';
import { Fields } from './stage-fields';

/**
 * Checks one stage and, when `resolved` (variables substituted), returns it with defaults applied and amounts as
 * BigInt. Before resolution a string holding `${...}` stands for any value, as it can only be judged at run time.
 */
export function parseStage(stage: unknown, index: number, resolved: boolean): ResolvedStage {
  const type = stageTypeOf(stage, `stages[${index}]`);
  const f = new Fields(`stages[${index}].${type}`, resolved);
  const body = (stage as Record<string, unknown>)[type];
  switch (type) {
    case 'noop':
      f.object(body, '', []);
      return { type, spec: {} };
    case 'wait_event': {
      const o = f.object(body, '', ['event']);
      return { type, spec: { event: f.eventName(o.event, 'event') } };
    }
    case 'delay':
      return { type, spec: parseDelay(f, body) };
    case 'update': {
      const o = f.object(body, '', ['account']);
      const account = f.object(o.account, 'account', ['id', 'ledger', 'metadata']);
      return {
        type,
        spec: { account: { ...parseAccount(f, account, 'account'), metadata: f.metadata(account.metadata, 'account.metadata', true) } },
      };
    }
    case 'send':
      return { type, spec: parseSend(f, body) };
  }
}

/** The single key of a stage object, e.g. `send` for `{send: {...}}`. */
export function stageTypeOf(stage: unknown, path: string): StageType {
  if (!stage || typeof stage !== 'object' || Array.isArray(stage)) throw new ConfigError(path, 'must be an object with exactly one stage type key');
  const keys = Object.keys(stage);
  if (keys.length !== 1) throw new ConfigError(path, `must have exactly one key among ${STAGE_TYPES.join(', ')}, got ${keys.length}`);
  const type = keys[0] as StageType;
  if (!STAGE_TYPES.includes(type)) throw new ConfigError(path, `unknown stage type "${keys[0]}" (expected one of ${STAGE_TYPES.join(', ')})`);
  return type;
}

function parseDelay(f: Fields, body: unknown) {
  const o = f.object(body, '', ['duration', 'until']);
  if ((o.duration === undefined) === (o.until === undefined)) throw f.error('', 'exactly one of duration or until is required');
  if (o.duration !== undefined) {
    const duration = f.string(o.duration, 'duration', true);
    if (!f.isVariable(duration) && parseGoDuration(duration) === undefined) {
      throw f.error('duration', `"${duration}" is not a duration (e.g. "10s", "1m30s", "500ms")`);
    }
    return { duration };
  }
  const until = f.string(o.until, 'until', true);
  if (!f.isVariable(until) && !isRfc3339(until)) throw f.error('until', `"${until}" is not an RFC 3339 date-time`);
  return { until };
}

function parseSend(f: Fields, body: unknown): SendStage {
  const o = f.object(body, '', ['source', 'destination', 'amount', 'metadata', 'timestamp']);
  const source = f.object(o.source, 'source', ['account', 'wallet', 'payment']);
  const destination = f.object(o.destination, 'destination', ['account', 'wallet', 'payment']);
  const sourceKind = f.oneOf(source, 'source', ['account', 'wallet', 'payment']);
  const destinationKind = f.oneOf(destination, 'destination', ['account', 'wallet', 'payment']);
  if (sourceKind === 'payment' && destinationKind === 'payment') throw f.error('destination', 'a send from a payment to a payment is not supported');
  const spec: SendStage = { source: {}, destination: {}, metadata: f.metadata(o.metadata, 'metadata', false) };
  if (sourceKind === 'account') spec.source.account = parseAccount(f, f.object(source.account, 'source.account', ['id', 'ledger']), 'source.account');
  // Every wallet lives on the wallets ledger, so a wallet-to-wallet send credits from the named source balance.
  if (sourceKind === 'wallet') spec.source.wallet = parseWallet(f, source.wallet, 'source.wallet', destinationKind !== 'wallet');
  if (sourceKind === 'payment') {
    const payment = f.object(source.payment, 'source.payment', ['id']);
    spec.source.payment = { id: f.providerObjectId(payment.id, 'source.payment.id', true) };
  }
  if (destinationKind === 'account') {
    spec.destination.account = parseAccount(f, f.object(destination.account, 'destination.account', ['id', 'ledger']), 'destination.account');
  }
  if (destinationKind === 'wallet') spec.destination.wallet = parseWallet(f, destination.wallet, 'destination.wallet', false);
  if (destinationKind === 'payment') spec.destination.payment = parsePaymentDestination(f, destination.payment);
  if (o.amount !== undefined) {
    const amount = f.object(o.amount, 'amount', ['asset', 'amount']);
    spec.amount = { asset: f.asset(amount.asset, 'amount.asset', destinationKind === 'payment'), amount: f.amount(amount.amount, 'amount.amount') };
  } else if (sourceKind !== 'payment') {
    throw f.error('amount', 'is required unless the source is a payment');
  }
  if (o.timestamp !== undefined && o.timestamp !== '') {
    const timestamp = f.string(o.timestamp, 'timestamp', false);
    if (!f.isVariable(timestamp) && !isRfc3339(timestamp)) throw f.error('timestamp', `"${timestamp}" is not an RFC 3339 date-time`);
    spec.timestamp = timestamp;
  }
  return spec;
}

function parseAccount(f: Fields, o: Record<string, unknown>, path: string): AccountRef {
  const ledger = f.ledger(o.ledger, `${path}.ledger`);
  return { id: f.address(o.id, `${path}.id`), ledger };
}

/** `allBalances`: the wallet is debited, so its balance may be `*`. */
function parseWallet(f: Fields, body: unknown, path: string, allBalances: boolean): WalletRef {
  const o = f.object(body, path, ['id', 'name', 'balance']);
  const id = f.walletId(o.id, `${path}.id`);
  const name = f.walletName(o.name, `${path}.name`);
  if (!id && !name) throw f.error(path, 'one of id or name is required');
  if (id && name && f.resolved) throw f.error(path, 'give id or name, not both');
  return { ...(id ? { id } : { name }), balance: f.balance(o.balance, `${path}.balance`, allBalances) };
}

function parsePaymentDestination(f: Fields, body: unknown): PaymentDestinationRef {
  const path = 'destination.payment';
  const o = f.object(body, path, ['psp', 'metadata', 'waitingValidation', 'connectorId']);
  const psp = f.string(o.psp, `${path}.psp`, false);
  const connectorId = f.providerObjectId(o.connectorId, `${path}.connectorId`, false);
  if (!psp && !connectorId) throw f.error(path, 'one of psp or connectorId is required');
  if (o.waitingValidation !== undefined && typeof o.waitingValidation !== 'boolean') throw f.error(`${path}.waitingValidation`, 'must be a boolean');
  return {
    psp,
    metadata: f.string(o.metadata, `${path}.metadata`, false) || 'formanceAccountID',
    waitingValidation: o.waitingValidation === true,
    ...(connectorId ? { connectorId } : {}),
  };
}

/** Go's time.ParseDuration syntax (Formance's delay stage), in milliseconds; undefined when malformed. */
export function parseGoDuration(text: string): number | undefined {
  if (text === '0') return 0;
  const units: Record<string, number> = { ns: 1e-6, us: 1e-3, µs: 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
  const part = /(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h)/y;
  let total = 0;
  let position = 0;
  while (position < text.length) {
    part.lastIndex = position;
    const match = part.exec(text);
    if (!match) return undefined;
    total += Number(match[1]) * units[match[2]];
    position = part.lastIndex;
  }
  return position > 0 ? total : undefined;
}

function isRfc3339(text: string): boolean {
  return /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/.test(text) && !Number.isNaN(Date.parse(text));
}

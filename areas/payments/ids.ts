import { randomUUID } from 'node:crypto';
import { UUID_PATTERN } from '../../lib/grammar';
import { stringifyJson } from '../../lib/json';

/**
 * Ids of provider-side objects follow Formance: base64url (no padding) of a canonical JSON object. They are
 * deterministic, so fetching the same provider object twice addresses the same row (idempotent upserts), and a
 * client can see which connector and reference an id stands for.
 */
const encode = (value: Record<string, string>): string => Buffer.from(stringifyJson(value)).toString('base64url');

export const connectorId = (provider: string): string => encode({ Provider: provider, Reference: randomUUID() });
export const accountId = (connectorID: string, reference: string): string => encode({ ConnectorID: connectorID, Reference: reference });
export const paymentId = (connectorID: string, reference: string): string => encode({ ConnectorID: connectorID, Reference: reference });
export const paymentInitiationId = (connectorID: string, reference: string): string => encode({ ConnectorID: connectorID, Reference: reference });
export const reversalId = (connectorID: string, reference: string): string => encode({ ConnectorID: connectorID, Reference: reference });
export const conversionId = (connectorID: string, reference: string): string => encode({ ConnectorID: connectorID, Reference: reference });
export const orderId = (connectorID: string, reference: string): string => encode({ ConnectorID: connectorID, Reference: reference });
/** An order adjustment is one observed state (status, filled quantity, fee): observing it again is the same adjustment. */
export const orderAdjustmentId = (orderID: string, status: string, filled: string, fee: string): string =>
  encode({ OrderID: orderID, Status: status, BaseQuantityFilled: filled, Fee: fee });

/** An adjustment is one observed state of a payment: the same state fetched twice is the same adjustment. */
export const adjustmentId = (paymentID: string, reference: string, createdAt: Date, status: string): string =>
  encode({ PaymentID: paymentID, Reference: reference, CreatedAt: createdAt.toISOString(), Status: status });

export const isUuid = (value: string): boolean => new RegExp(UUID_PATTERN).test(value);

/** The provider-side reference (a UUID) a connector id encodes; undefined for an id that is not one of ours. */
export function connectorReference(connectorID: string): string | undefined {
  try {
    const decoded = Buffer.from(connectorID, 'base64url').toString('utf8');
    const match = /"Reference":"([0-9a-f-]{36})"/.exec(decoded);
    return match?.[1];
  } catch {
    return undefined;
  }
}

/**
 * The readable prefix of a connector's Temporal ids (schedules, their runs, its tasks):
 * `connector-<provider>-<name>-<first 8 characters of its reference>`, e.g. `connector-simulated-demo-1f0c9a2b`. The
 * wire id stays the encoded one; this is what an operator reads in the Temporal UI. Deterministic, since a connector's
 * provider, name and reference never change.
 */
export function connectorLabel(connector: { id: string; provider: string; name: string }): string {
  const slug =
    connector.name
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 40) || 'unnamed';
  const short = (connectorReference(connector.id) ?? Buffer.from(connector.id).toString('hex')).replace(/-/g, '').slice(0, 8);
  return `connector-${connector.provider}-${slug}-${short}`;
}

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

/** An adjustment is one observed state of a payment: the same state fetched twice is the same adjustment. */
export const adjustmentId = (paymentID: string, reference: string, createdAt: Date, status: string): string =>
  encode({ PaymentID: paymentID, Reference: reference, CreatedAt: createdAt.toISOString(), Status: status });

export const isUuid = (value: string): boolean => new RegExp(UUID_PATTERN).test(value);

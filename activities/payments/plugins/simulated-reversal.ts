import path from 'node:path';
import type { ProviderPayment } from '../../../areas/payments';
import { providerRejected, type ReversalRequest } from './plugin';
import { parsePayment } from './provider-data';
import { fileName, readJson, writeJson } from './simulated-files';

interface Provider {
  directory: string;
  payments(): Promise<ProviderPayment[]>;
}

/**
 * The simulated provider's reversal of a payment it executed: a REFUNDED payment of the reversed amount, with the
 * original's type and accounts, written to `reversed/<hash of the key>.json` (so a retry with the same key answers the
 * same payment) and fetched like the others. The provider refuses a payment it does not know, another asset, and more
 * than what remains of the payment after its earlier reversals.
 */
export async function simulatedReversal(files: Provider, request: ReversalRequest): Promise<ProviderPayment> {
  const folder = path.join(files.directory, 'reversed');
  const target = path.join(folder, fileName(request.idempotencyKey));
  const where = `reversed/${path.basename(target)}`;
  const existing = await readJson(target);
  if (existing !== undefined) return parsePayment(existing as Record<string, unknown>, where);
  const all = await files.payments();
  const original = all.find((p) => p.reference === request.paymentReference);
  if (!original) throw providerRejected(`unknown payment ${request.paymentReference}`);
  if (original.asset !== request.asset) throw providerRejected(`payment ${request.paymentReference} is in ${original.asset}, not ${request.asset}`);
  const reversed = all.filter((p) => p.metadata.reversedPayment === request.paymentReference).reduce((sum, p) => sum + p.amount, 0n);
  if (reversed + request.amount > original.amount) {
    throw providerRejected(
      `cannot reverse ${request.amount} of payment ${request.paymentReference}: ${original.amount - reversed} ${request.asset} remain`,
    );
  }
  const item = {
    reference: `sim-rev-${path.basename(target, '.json')}`,
    type: request.type,
    status: 'REFUNDED',
    amount: request.amount,
    asset: request.asset,
    scheme: 'other',
    createdAt: new Date().toISOString(),
    ...(original.sourceAccountReference ? { sourceAccountReference: original.sourceAccountReference } : {}),
    ...(original.destinationAccountReference ? { destinationAccountReference: original.destinationAccountReference } : {}),
    metadata: { ...request.metadata, reference: request.reference, reversedPayment: request.paymentReference },
  };
  await writeJson(target, item);
  return parsePayment(item, where);
}

import { isDefined, pollUntil } from '../support/eventually';
import { suffix } from '../support/payments';
import { sdkClientWithToken } from './sdk-client';

/** What the payments.v3 contract files share. */
// Token added where the SDK sends none (getBankAccount, updateBankAccountMetadata, forwardBankAccount): see sdk-client.ts.
export const v3 = sdkClientWithToken().payments.v3;

/** A task once it is no longer PROCESSING. */
export const settled = (taskID: string) =>
  pollUntil(
    async () => {
      const task = (await v3.getTask({ taskID })).v3GetTaskResponse!.data;
      return task.status !== 'PROCESSING' ? task : undefined;
    },
    isDefined,
    { timeoutMs: 30_000, what: `task ${taskID}` },
  );

export const newBankAccount = async (name = `ba-${suffix()}`) =>
  (await v3.createBankAccount({ name, iban: 'FR7630006000011234567890189', swiftBicCode: 'BNPAFRPP', country: 'FR', metadata: { team: 'ops' } }))
    .v3CreateBankAccountResponse!.data;

/**
 * The reconciliation area's in-process API: the routes call these functions.
 */

// --- Policies and reconciliations (Formance's classic model): policies/ ---
export { createPolicy, deletePolicy, getPolicy, listPolicies, policyKey, type Policy, type PolicyInput } from './policies/policies';
export { getReconciliation, listReconciliations, reconcile, reconciliationKey, type Reconciliation } from './policies/reconcile';
export { computeDrift, type ReconciliationOutcome } from './policies/drift';
// --- end of policies and reconciliations ---

/**
 * The auth area's in-process API: OAuth clients and their secrets, token revocations, and the issuer's signing keys.
 * The embedded issuer and the token verifier (api/auth/) and the routes import only this file.
 */
export {
  createClient,
  createClientSecret,
  deleteClient,
  deleteClientSecret,
  ensureClient,
  getClient,
  listClients,
  matchClientSecret,
  updateClient,
} from './clients';
export { readRevocationsAfter, type RevocationKind, type RevocationRow, REVOCATIONS_CHANNEL, revokeToken, scopesSubject } from './revocations';
export { loadSigningKeys, publicJwk, rotateSigningKey } from './signing-keys';
export { type AuditEntry, type AuditFilters, deleteAuditEntriesBefore, listAuditEntries, recordAuditEntries } from './audit';

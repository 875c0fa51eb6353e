import { randomUUID } from 'node:crypto';
import { notFound, validationError } from '../../lib/errors';
import { generateSecret, secretProblem } from '../../lib/webhooks/signature';
import { checkEndpointUrl } from '../../lib/webhooks/ssrf';
import { loadWebhookSettings } from '../../lib/webhooks/settings';
import type { ListQuery } from '../../db/pagination';
import { keysetPage, type Page } from '../../db/pagination';
import type { Executor } from '../../db/knex';

export interface WebhookConfig {
  id: string;
  endpoint: string;
  secret: string;
  eventTypes: string[];
  active: boolean;
  name: string;
  createdAt: Date;
  updatedAt: Date;
}

export interface WebhookConfigRow {
  id: string;
  endpoint: string;
  secret: string;
  previous_secret: string | null;
  previous_secret_until: Date | null;
  event_types: string[];
  active: boolean;
  name: string;
  created_at: Date;
  updated_at: Date;
}

export interface WebhookConfigInput {
  endpoint: string;
  eventTypes: string[];
  secret?: string;
  name?: string;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const isUuid = (value: string): boolean => UUID.test(value);

export function presentConfig(row: WebhookConfigRow): WebhookConfig {
  return {
    id: row.id,
    endpoint: row.endpoint,
    secret: row.secret,
    eventTypes: row.event_types,
    active: row.active,
    name: row.name,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** Validates endpoint (URL, http(s), not a blocked address literal) and event types; lower-cases the types. */
function checkInput(input: { endpoint: string; eventTypes: string[] }): string[] {
  const problem = checkEndpointUrl(input.endpoint, loadWebhookSettings().allowed);
  if (problem) throw validationError(`invalid config: ${problem}`);
  const types = input.eventTypes.map((t) => t.trim().toLowerCase());
  if (types.length === 0 || types.some((t) => t === '')) throw validationError('invalid config: eventTypes should be filled');
  return [...new Set(types)];
}

function checkSecret(secret: string | undefined): string {
  if (secret === undefined || secret === '') return generateSecret();
  const problem = secretProblem(secret);
  if (problem) throw validationError(`invalid secret: ${problem}`);
  return secret;
}

/** @throws ApiError NOT_FOUND */
export async function getConfigRow(db: Executor, id: string): Promise<WebhookConfigRow> {
  const row = isUuid(id) ? await db<WebhookConfigRow>('webhook_configs').where({ id }).first() : undefined;
  if (!row) throw notFound('config not found');
  return row;
}

/** @throws ApiError NOT_FOUND */
export async function getConfig(db: Executor, id: string): Promise<WebhookConfig> {
  return presentConfig(await getConfigRow(db, id));
}

/** New configs are active; a missing or empty secret is generated. @throws ApiError VALIDATION */
export async function createConfig(db: Executor, input: WebhookConfigInput): Promise<WebhookConfig> {
  const eventTypes = checkInput(input);
  const [row] = await db<WebhookConfigRow>('webhook_configs')
    .insert({ id: randomUUID(), endpoint: input.endpoint, secret: checkSecret(input.secret), event_types: eventTypes, name: input.name ?? '' })
    .returning('*');
  return presentConfig(row);
}

/** Replaces endpoint, event types and name; the secret changes only through changeSecret. @throws VALIDATION, NOT_FOUND */
export async function updateConfig(db: Executor, id: string, input: Omit<WebhookConfigInput, 'secret'>): Promise<WebhookConfig> {
  const eventTypes = checkInput(input);
  await getConfigRow(db, id);
  const [row] = await db<WebhookConfigRow>('webhook_configs')
    .where({ id })
    .update({ endpoint: input.endpoint, event_types: eventTypes, name: input.name ?? '', updated_at: db.fn.now() as unknown as Date })
    .returning('*');
  if (!row) throw notFound('config not found');
  return presentConfig(row);
}

/**
 * Sets `active`; updatedAt is refreshed even when the state does not change (the call is what it records). Activating
 * starts the endpoint afresh: a platform disabling and any backoff are forgotten (its next delivery goes out at once).
 * @throws NOT_FOUND
 */
export async function setConfigActive(db: Executor, id: string, active: boolean): Promise<WebhookConfig> {
  const fresh = active ? { disabled_at: null, disabled_reason: null, failing_since: null, backoff_attempts: 0, retry_at: null } : {};
  const [row] = isUuid(id)
    ? await db<WebhookConfigRow>('webhook_configs')
        .where({ id })
        .update({ active, ...fresh, updated_at: db.fn.now() as unknown as Date })
        .returning('*')
    : [];
  if (!row) throw notFound('config not found');
  return presentConfig(row);
}

/**
 * Replaces the signing secret (empty or missing: a generated one). The old secret keeps signing, next to the new one,
 * for WEBHOOKS_SECRET_ROTATION_GRACE_MS, so receivers can switch without rejecting requests. @throws VALIDATION, NOT_FOUND
 */
export async function changeSecret(db: Executor, id: string, secret: string | undefined): Promise<WebhookConfig> {
  const next = checkSecret(secret);
  const graceSeconds = loadWebhookSettings().rotationGraceMs / 1000;
  const [row] = isUuid(id)
    ? await db<WebhookConfigRow>('webhook_configs')
        .where({ id })
        .update({
          previous_secret: db.raw('secret') as unknown as string,
          previous_secret_until: db.raw(`now() + make_interval(secs => ?)`, [graceSeconds]) as unknown as Date,
          secret: next,
          updated_at: db.fn.now() as unknown as Date,
        })
        .returning('*')
    : [];
  if (!row) throw notFound('config not found');
  return presentConfig(row);
}

/** Hard delete, as Formance; past deliveries stay readable. @throws NOT_FOUND */
export async function deleteConfig(db: Executor, id: string): Promise<void> {
  const deleted = isUuid(id) ? await db('webhook_configs').where({ id }).delete() : 0;
  if (deleted === 0) throw notFound('config not found');
}

/** Most recently updated first (Formance's order); filters `id` and `endpoint` (exact). */
export async function listConfigs(db: Executor, list: ListQuery<{ id?: string; endpoint?: string }>): Promise<Page<WebhookConfigRow>> {
  const query = db<WebhookConfigRow>('webhook_configs').select('*');
  if (list.filters.id !== undefined) {
    if (!isUuid(list.filters.id)) return { items: [], hasNext: false, hasPrevious: false };
    query.where('id', list.filters.id);
  }
  if (list.filters.endpoint !== undefined) query.where('endpoint', list.filters.endpoint);
  return keysetPage<WebhookConfigRow>(query, ['updated_at', 'id'], 'desc', list);
}

/** The secrets to sign with now: the current one, plus the previous one during its grace period. */
export function signingSecrets(row: WebhookConfigRow, now: Date = new Date()): string[] {
  const previous = row.previous_secret && row.previous_secret_until && row.previous_secret_until > now ? [row.previous_secret] : [];
  return [row.secret, ...previous];
}

import { createHmac, timingSafeEqual } from 'node:crypto';
import { validationError } from '../lib/errors';
import { parseJson, stringifyJson } from '../lib/json';
import type { JsonPage, ListQuery, Page } from '../db/pagination';

export const DEFAULT_PAGE_SIZE = 15;

/**
 * What a cursor is signed with: the deployment's cursor key (the same in every API process) and the identity of the
 * list it pages. A cursor carries keyset values that go into SQL as they are, so the server accepts only cursors it
 * issued, unchanged, on the list that issued them; checking each value's type per list instead would have to be
 * repeated, and kept right, in every list.
 */
export interface CursorScope {
  key: Buffer;
  list: string;
}

/** The decoded state a cursor carries (the database's ListQuery), and the key that signs the next pages' cursors. */
export interface ListRequest<F = Record<string, unknown>> extends ListQuery<F> {
  /** Signs the cursors of this list's pages. */
  scope: CursorScope;
}

interface CursorState {
  f: Record<string, unknown>;
  p: number;
  k: unknown[];
  d: 'next' | 'prev';
}

/** A truncated HMAC-SHA256: 128 bits are beyond guessing, and every page answer carries two cursors. */
const TAG_BYTES = 16;

// A key per list, derived from the deployment key, binds the tag to the list without any framing of list and payload.
function tagOf(scope: CursorScope, payload: Buffer): Buffer {
  const listKey = createHmac('sha256', scope.key).update(scope.list).digest();
  return createHmac('sha256', listKey).update(payload).digest().subarray(0, TAG_BYTES);
}

/** The wire form, an opaque base64url string: the tag, then the state's JSON. */
export function encodeCursor(state: CursorState, scope: CursorScope): string {
  const payload = Buffer.from(stringifyJson(state));
  return Buffer.concat([tagOf(scope, payload), payload]).toString('base64url');
}

export function decodeCursor(cursor: string, scope: CursorScope): CursorState {
  const raw = Buffer.from(cursor, 'base64url');
  // Node's decoder skips characters outside the alphabet; only the canonical spelling of the bytes is the cursor.
  if (raw.length > TAG_BYTES && raw.toString('base64url') === cursor) {
    const payload = raw.subarray(TAG_BYTES);
    if (timingSafeEqual(raw.subarray(0, TAG_BYTES), tagOf(scope, payload))) return parseJson(payload.toString('utf8')) as CursorState;
  }
  throw validationError(
    'invalid cursor: a cursor is accepted only unchanged and only by the list that issued it; pass back the `next` or `previous` value of one of its pages',
  );
}

/** Builds the cursor envelope; `keyOf` gives the sort key of an item (the same columns the page was sorted by). */
export function cursorEnvelope<T, R = T>(
  request: ListRequest,
  page: Page<R>,
  keyOf: (row: R) => unknown[],
  present: (row: R) => T = (row) => row as unknown as T,
) {
  return { cursor: { ...cursorLinks(request, page, keyOf), data: page.items.map(present) } };
}

function cursorLinks<R>(request: ListRequest, page: Page<R>, keyOf: (row: R) => unknown[]) {
  const first = page.items[0];
  const last = page.items[page.items.length - 1];
  return linksOf(request, {
    ...page,
    firstKey: first === undefined ? undefined : keyOf(first),
    lastKey: last === undefined ? undefined : keyOf(last),
  });
}

function linksOf(request: ListRequest, page: Omit<JsonPage, 'json'>) {
  const at = (key: unknown[], d: 'next' | 'prev') =>
    encodeCursor({ f: request.filters as Record<string, unknown>, p: request.pageSize, k: key, d }, request.scope);
  return {
    pageSize: request.pageSize,
    hasMore: page.hasNext,
    previous: page.hasPrevious && page.firstKey !== undefined ? at(page.firstKey, 'prev') : '',
    next: page.hasNext && page.lastKey !== undefined ? at(page.lastKey, 'next') : '',
  };
}

/**
 * The cursor envelope of a page the database rendered (JsonPage): its items' text is inserted as it is, and the result
 * is the response body, ready to send as application/json.
 */
export function cursorEnvelopeJson(request: ListRequest, page: JsonPage): string {
  const links = stringifyJson(linksOf(request, page));
  return `{"cursor":${links.slice(0, -1)},"data":[${page.json}]}}`;
}

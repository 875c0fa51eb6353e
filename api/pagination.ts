import { validationError } from '../lib/errors';
import { parseJson, stringifyJson } from '../lib/json';
import type { Page, PageRequest } from '../db/pagination';

export const DEFAULT_PAGE_SIZE = 15;

/** The decoded state a cursor carries: the list's filters, its page size and where the page starts. */
export interface ListRequest<F = Record<string, unknown>> extends PageRequest {
  filters: F;
}

interface CursorState {
  f: Record<string, unknown>;
  p: number;
  k: unknown[];
  d: 'next' | 'prev';
}

export function encodeCursor(state: CursorState): string {
  return Buffer.from(stringifyJson(state)).toString('base64url');
}

export function decodeCursor(cursor: string): CursorState {
  try {
    const state = parseJson(Buffer.from(cursor, 'base64url').toString('utf8')) as CursorState;
    const valid =
      state && typeof state === 'object' && typeof state.f === 'object' && state.f !== null && Number.isInteger(state.p) &&
      Array.isArray(state.k) && (state.d === 'next' || state.d === 'prev');
    if (valid) return state;
  } catch {
    // fall through: any undecodable cursor is the same client error
  }
  throw validationError('invalid cursor: pass back the `next` or `previous` value of an earlier page unchanged');
}

/** Builds the cursor envelope; `keyOf` gives the sort key of an item (the same columns the page was sorted by). */
export function cursorEnvelope<T, R = T>(
  request: ListRequest,
  page: Page<R>,
  keyOf: (row: R) => unknown[],
  present: (row: R) => T = (row) => row as unknown as T,
) {
  const first = page.items[0];
  const last = page.items[page.items.length - 1];
  const at = (row: R, d: 'next' | 'prev') => encodeCursor({ f: request.filters as Record<string, unknown>, p: request.pageSize, k: keyOf(row), d });
  return {
    cursor: {
      pageSize: request.pageSize,
      hasMore: page.hasNext,
      previous: page.hasPrevious && first !== undefined ? at(first, 'prev') : '',
      next: page.hasNext && last !== undefined ? at(last, 'next') : '',
      data: page.items.map(present),
    },
  };
}

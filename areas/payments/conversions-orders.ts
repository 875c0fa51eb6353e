import { notFound } from '../../lib/errors';
import type { Page } from '../../db/pagination';

/**
 * Formance's conversions and orders are fetched by connectors with FETCH_CONVERSIONS / FETCH_ORDERS (exchanges). Neither
 * plugin has them, so nothing is ever stored: the lists are empty and a read is 404, as Formance answers when no
 * connector fetched any.
 */
export const emptyPage = <T>(): Page<T> => ({ items: [], hasNext: false, hasPrevious: false });

export function getConversion(id: string): never {
  throw notFound(`conversion ${id} not found`);
}

export function getOrder(id: string): never {
  throw notFound(`order ${id} not found`);
}

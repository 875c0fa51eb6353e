import pino from 'pino';
import { getConfig } from './config';

export type Logger = pino.Logger;

/** Structured JSON logs on stdout; secrets never reach them because request bodies and headers are not logged. */
export function createLogger(name: string, level: string = getConfig().logLevel): Logger {
  return pino({ name, level, base: { service: name }, timestamp: pino.stdTimeFunctions.isoTime });
}

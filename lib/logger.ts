import pino from 'pino';

export type Logger = pino.Logger;

/** Structured JSON logs on stdout; secrets never reach them because request bodies and headers are not logged. */
export function createLogger(name: string, level = process.env.LOG_LEVEL || 'info'): Logger {
  return pino({ name, level, base: { service: name }, timestamp: pino.stdTimeFunctions.isoTime });
}

import type { LogLevel, LogMetadata, Logger as TemporalLogger } from '@temporalio/common';
import type { Logger } from '../lib/logger';

const LEVELS: Record<LogLevel, 'trace' | 'debug' | 'info' | 'warn' | 'error'> = {
  TRACE: 'trace',
  DEBUG: 'debug',
  INFO: 'info',
  WARN: 'warn',
  ERROR: 'error',
};

/**
 * The Temporal SDK's logger (Runtime.install's `logger`), written through the platform's pino logger: one JSON line
 * per event, as every other log line of the worker. The SDK's default logger prints a failure's stack and cause over
 * many plain-text lines; here the error goes under `err`, whose serializer keeps its stack inside the one line.
 */
export class PinoTemporalLogger implements TemporalLogger {
  constructor(private readonly logger: Logger) {}

  log(level: LogLevel, message: string, meta?: LogMetadata): void {
    const method = LEVELS[level] ?? 'info';
    if (!this.logger.isLevelEnabled(method)) return;
    if (!meta) return this.logger[method](message);
    const { error, ...rest } = meta as LogMetadata & { error?: unknown };
    this.logger[method](error === undefined ? rest : { ...rest, err: error }, message);
  }

  trace(message: string, meta?: LogMetadata): void {
    this.log('TRACE', message, meta);
  }

  debug(message: string, meta?: LogMetadata): void {
    this.log('DEBUG', message, meta);
  }

  info(message: string, meta?: LogMetadata): void {
    this.log('INFO', message, meta);
  }

  warn(message: string, meta?: LogMetadata): void {
    this.log('WARN', message, meta);
  }

  error(message: string, meta?: LogMetadata): void {
    this.log('ERROR', message, meta);
  }
}

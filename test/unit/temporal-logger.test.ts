import { Writable } from 'node:stream';
import pino from 'pino';
import { PinoTemporalLogger } from '../../activities/temporal-logger';

function capture(level = 'info') {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      lines.push(...String(chunk).split('\n').filter(Boolean));
      done();
    },
  });
  return { lines, logger: new PinoTemporalLogger(pino({ level, base: { service: 'temporal' } }, stream)) };
}

describe('the Temporal SDK logger through pino', () => {
  it("writes one JSON line per event, the error with its stack under err, the SDK's metadata as fields", () => {
    const { lines, logger } = capture();
    const error = new Error('webhook http://127.0.0.1:1/hook answered 503');
    logger.warn('Activity failed', { sdkComponent: 'worker', activityType: 'sendWebhook', attempt: 3, error });
    expect(lines).toHaveLength(1);
    const line = JSON.parse(lines[0]);
    expect(line).toMatchObject({
      level: 40,
      service: 'temporal',
      msg: 'Activity failed',
      sdkComponent: 'worker',
      activityType: 'sendWebhook',
      attempt: 3,
    });
    expect(line.err).toMatchObject({ type: 'Error', message: 'webhook http://127.0.0.1:1/hook answered 503' });
    expect(line.err.stack).toContain('temporal-logger.test.ts');
  });

  it("maps the SDK's levels to pino's and drops what is below the configured level", () => {
    const { lines, logger } = capture('info');
    logger.log('TRACE', 'trace');
    logger.debug('debug');
    logger.info('info');
    logger.log('ERROR', 'error', { taskQueue: 'q' });
    expect(lines.map((l) => [JSON.parse(l).level, JSON.parse(l).msg])).toEqual([
      [30, 'info'],
      [50, 'error'],
    ]);
  });
});

const UNITS: Record<string, number> = { ns: 1e-6, us: 1e-3, µs: 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
const PART = /(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h)/gy;

/** A Go duration (`time.ParseDuration`: "30s", "1m30s", "1.5h", "0") in milliseconds, or undefined when it is not one. */
export function parseGoDuration(text: string): number | undefined {
  if (text === '0') return 0;
  const sign = text.startsWith('-') ? -1 : 1;
  const body = text.replace(/^[-+]/, '');
  if (body.length === 0 || body.length > 64) return undefined;
  PART.lastIndex = 0;
  let total = 0;
  let consumed = 0;
  for (let match = PART.exec(body); match; match = PART.exec(body)) {
    total += Number(match[1]) * UNITS[match[2]];
    consumed = PART.lastIndex;
  }
  return consumed === body.length ? sign * total : undefined;
}

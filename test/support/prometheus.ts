/** Reads Prometheus text exposition format in tests. */

/** Every sample of `name` whose labels include `labels`, summed (0 when none). */
export function sampleValue(text: string, name: string, labels: Record<string, string> = {}): number {
  let total = 0;
  for (const line of text.split('\n')) {
    if (line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)/.exec(line);
    if (!match || match[1] !== name) continue;
    const present = new Map<string, string>();
    for (const [, key, value] of (match[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) present.set(key, value);
    if (Object.entries(labels).every(([key, value]) => present.get(key) === value)) total += Number(match[3]);
  }
  return total;
}

export async function scrape(url: string): Promise<{ status: number; contentType: string; text: string }> {
  const response = await fetch(url, { signal: AbortSignal.timeout(30_000) });
  return { status: response.status, contentType: response.headers.get('content-type') ?? '', text: await response.text() };
}

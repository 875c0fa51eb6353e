import path from 'node:path';
import { runSchemathesis, type FuzzOptions, type FuzzResult } from './schemathesis';
import { writeSeededConfig } from './seed';

export interface PassResult extends FuzzResult {
  pass: 'random identifiers' | 'seeded identifiers';
}

/**
 * The two fuzzing passes over every operation: first with generated path identifiers (mostly 404s: malformed and
 * unknown ids, every validation path), then with path parameters bound to resources seeded through the API, so
 * handlers run to their 2xx answers and those bodies are checked against their documented schemas.
 */
export async function runFuzzPasses(cli: string, options: Omit<FuzzOptions, 'configFile'>): Promise<PassResult[]> {
  const random = await runSchemathesis(cli, { ...options, reportDir: path.join(options.reportDir, 'random') });
  const configFile = await writeSeededConfig(options.apiUrl, options.token, path.join(options.reportDir, 'seeded'));
  const seeded = await runSchemathesis(cli, { ...options, configFile, reportDir: path.join(options.reportDir, 'seeded') });
  return [
    { ...random, pass: 'random identifiers' },
    { ...seeded, pass: 'seeded identifiers' },
  ];
}

import fs from 'node:fs';
import path from 'node:path';
import { REQUEST_EXAMPLES } from '../../../api/openapi/request-examples';
import { durationMs } from '../../../areas/payments/connectors/connector-config';
import { parseJson } from '../../../lib/json';
import { routesWithBuiltInPlugins } from '../../support/routes';

const root = path.resolve(__dirname, '../../..');

/** Each tick of a connector schedule is one workflow run: the documented examples must not bury an operator's runs. */
const QUIETEST_ALLOWED_MS = 60_000;

/** The polling period of a simulated-connector config, under either name (v1's dummypay says `filePollingPeriod`); absent, the default. */
const periodOf = (config: Record<string, unknown>): string => (config.pollingPeriod ?? config.filePollingPeriod ?? '2m') as string;

/** Every JSON object in a Markdown file that configures a simulated connector (`"directory": "simulated/…"`). */
function documentedConfigs(file: string): Array<{ where: string; config: Record<string, unknown> }> {
  const text = fs.readFileSync(file, 'utf8');
  const found: Array<{ where: string; config: Record<string, unknown> }> = [];
  for (const match of text.matchAll(/\{[^{}]*"directory"\s*:\s*"[^"]*simulated[^"]*"[^{}]*\}/g)) {
    const line = text.slice(0, match.index).split('\n').length;
    found.push({ where: `${path.relative(root, file)}:${line}`, config: parseJson(match[0]) as Record<string, unknown> });
  }
  return found;
}

/**
 * The simulated connector's documented examples (docs, README, OpenAPI request examples) poll at most once a minute:
 * at 5 s, a newcomer following them made 552 workflow runs in 13 minutes and lost the runs they were looking for.
 */
describe("the simulated connector's documented examples", () => {
  const markdown = [path.join(root, 'README.md'), ...fs.readdirSync(path.join(root, 'docs')).map((name) => path.join(root, 'docs', name))].filter(
    (file) => file.endsWith('.md'),
  );
  const documented = markdown.flatMap(documentedConfigs);
  // The catalogue's examples, and those a connector plugin carries for its own install operation.
  const pluginExamples = routesWithBuiltInPlugins().flatMap((route) =>
    route.spec.requestExample !== undefined ? [[route.spec.operationId, route.spec.requestExample] as const] : [],
  );
  const openapi = [...Object.entries(REQUEST_EXAMPLES), ...pluginExamples]
    .filter(
      ([, body]) => typeof body === 'object' && body !== null && String((body as Record<string, unknown>).directory ?? '').includes('simulated'),
    )
    .map(([operationId, body]) => ({ where: `OpenAPI ${operationId}`, config: body as Record<string, unknown> }));

  it('are found where a newcomer reads them (quickstart, payments docs, the install operations)', () => {
    const places = [...documented, ...openapi].map((e) => e.where);
    expect(places).toEqual(expect.arrayContaining([expect.stringMatching(/^docs\/quickstart\.md:/), expect.stringMatching(/^docs\/payments\.md:/)]));
    expect(places).toEqual(expect.arrayContaining(['OpenAPI installConnector_simulated', 'OpenAPI installConnectorV1']));
  });

  it('poll at most once a minute', () => {
    const tooFast = [...documented, ...openapi]
      .map(({ where, config }) => ({ where, period: periodOf(config) }))
      .filter(({ period }) => durationMs(period, 'pollingPeriod', 1, 86_400_000) < QUIETEST_ALLOWED_MS);
    expect(tooFast).toEqual([]);
  });
});

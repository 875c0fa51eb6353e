import fs from 'node:fs';
import path from 'node:path';
import {
  INFRASTRUCTURE_SERVICES,
  NOT_DRILLED_SERVICES,
  PLATFORM_SERVICES,
  TEMPORAL_SERVER_VERSION,
  searchAttributeRegistrations,
} from '../../scripts/production-drill/topology';

/**
 * `npm run drill:production` assembles docker-compose.yml's topology without Docker. This keeps the two from drifting
 * apart: the drill's process table (scripts/production-drill/topology.ts) must name the compose file's services, run
 * their commands and set their environment variables, and register the search attributes its one-shot job registers.
 */
// js-yaml (a dev dependency without typings of its own): the compose file needs a real YAML reader for its block scalars.
const yaml = require('js-yaml') as { load(text: string): unknown };

interface ComposeService {
  image?: string;
  command?: string[] | string;
  environment?: Record<string, unknown>;
}

const compose = yaml.load(fs.readFileSync(path.resolve(__dirname, '../../docker-compose.yml'), 'utf8')) as {
  services: Record<string, ComposeService>;
};

describe('docker-compose.yml and the production drill', () => {
  it('name the same services', () => {
    const drilled = [...PLATFORM_SERVICES.map((s) => s.service), ...INFRASTRUCTURE_SERVICES, ...NOT_DRILLED_SERVICES];
    expect(Object.keys(compose.services).sort()).toEqual([...drilled].sort());
  });

  it.each(PLATFORM_SERVICES.map((s) => [s.service, s] as const))('run %s with the same command and environment variable names', (name, service) => {
    const composed = compose.services[name];
    expect(composed.command).toEqual(service.command);
    expect(Object.keys(composed.environment ?? {}).sort()).toEqual([...service.environment].sort());
  });

  it('run the Temporal server release the compose file pins', () => {
    expect(compose.services.temporal.image).toBe(`temporalio/auto-setup:${TEMPORAL_SERVER_VERSION}`);
    expect(compose.services['temporal-search-attributes'].image).toBe(`temporalio/admin-tools:${TEMPORAL_SERVER_VERSION}`);
  });

  it('register the same search attributes with the same types', () => {
    const script = String([compose.services['temporal-search-attributes'].command].flat().join(' '));
    const registered: Array<[string, string]> = [];
    const loop = /for a in ([^;]+); do[^;]*--type (\w+)/.exec(script);
    if (loop) for (const name of loop[1].trim().split(/\s+/)) registered.push([name, loop[2]]);
    for (const match of script.matchAll(/--name (\w+) --type (\w+)/g)) registered.push([match[1], match[2]]);
    expect(registered.sort()).toEqual(searchAttributeRegistrations().sort());
  });
});

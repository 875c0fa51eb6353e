import { execFile, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { stopChild, waitForTemporal } from '../stack/temporal';
import { isPortFree } from '../stack/ports';
import { TEMPORAL_SERVER_VERSION, searchAttributeRegistrations } from './topology';

const ROOT = path.resolve(__dirname, '..', '..');
const run = promisify(execFile);
const MODULE = `go.temporal.io/server@v${TEMPORAL_SERVER_VERSION}`;
export const TEMPORAL_SERVER_DIR = path.join(ROOT, '.tools', 'temporal-server');

export interface TemporalServerBinaries {
  server: string;
  sqlTool: string;
  /** The module's schema directory (…/schema/postgresql/v12), whose versioned/ folders update-schema applies. */
  schemaDir: string;
  /** Seconds spent building, 0 when both binaries were cached. */
  builtInSeconds: number;
}

/**
 * The Temporal server and its SQL tool built from the release docker-compose.yml pins, cached in .tools/temporal-server.
 * Temporal publishes no server binary to any package registry, so `go install` builds it; the first build takes
 * 15-20 minutes on two cores (mostly compiling the server's dependencies), later runs reuse the binaries.
 */
export async function ensureTemporalServerBinaries(log: (line: string) => void): Promise<TemporalServerBinaries> {
  const server = path.join(TEMPORAL_SERVER_DIR, 'server');
  // `go install …/cmd/tools/sql` names its binary `sql`; the release archives call it temporal-sql-tool. Either will do.
  const sqlTools = ['temporal-sql-tool', 'sql'].map((name) => path.join(TEMPORAL_SERVER_DIR, name));
  const started = Date.now();
  const env = { ...process.env, GOBIN: TEMPORAL_SERVER_DIR };
  if (!fs.existsSync(server)) {
    log(`building the Temporal server ${TEMPORAL_SERVER_VERSION} with go install (a first build takes 15-20 minutes on two cores)`);
    await run('go', ['install', `go.temporal.io/server/cmd/server@v${TEMPORAL_SERVER_VERSION}`], { env, maxBuffer: 64 << 20 });
  }
  if (!sqlTools.some((tool) => fs.existsSync(tool))) {
    log(`building temporal-sql-tool ${TEMPORAL_SERVER_VERSION} with go install (about a minute once the server is built)`);
    await run('go', ['install', `go.temporal.io/server/cmd/tools/sql@v${TEMPORAL_SERVER_VERSION}`], { env, maxBuffer: 64 << 20 });
    fs.renameSync(sqlTools[1], sqlTools[0]);
  }
  const sqlTool = sqlTools.find((tool) => fs.existsSync(tool))!;
  const modcache = (await run('go', ['env', 'GOMODCACHE'])).stdout.trim();
  const schemaDir = path.join(modcache, MODULE, 'schema', 'postgresql', 'v12');
  if (!fs.existsSync(schemaDir)) await run('go', ['mod', 'download', MODULE], { env });
  return { server, sqlTool, schemaDir, builtInSeconds: Math.round((Date.now() - started) / 1000) };
}

/**
 * Creates Temporal's two databases and their schemas with Temporal's own SQL tool, as the auto-setup image does:
 * create-database, setup-schema at 0.0 (the version table), then update-schema through every versioned folder.
 */
export async function setupTemporalSchemas(
  binaries: TemporalServerBinaries,
  postgres: { port: number; user: string; password: string },
): Promise<void> {
  const base = ['--plugin', 'postgres12', '--ep', '127.0.0.1', '-p', String(postgres.port), '-u', postgres.user, '--pw', postgres.password];
  for (const [database, schema] of [
    ['temporal', 'temporal'],
    ['temporal_visibility', 'visibility'],
  ]) {
    const tool = (...args: string[]) => run(binaries.sqlTool, [...base, '--db', database, ...args]);
    await tool('create-database');
    await tool('setup-schema', '-v', '0.0');
    await tool('update-schema', '-d', path.join(binaries.schemaDir, schema, 'versioned'));
  }
}

export interface TemporalServer {
  address: string;
  readonly process: ChildProcess;
  stop(): Promise<void>;
  start(): Promise<void>;
}

/**
 * Writes the server's configuration (persistence on the given PostgreSQL, four history shards, every service on free
 * 127.0.0.1 ports, the dynamic config docker-compose.yml mounts) and starts the four services in one process.
 * Four shards: enough for two workers on one machine, and the figure the module's own development config uses; a real
 * cluster picks it once, at creation, for its peak load (see docs/operations.md).
 */
export async function startTemporalServer(options: {
  binaries: TemporalServerBinaries;
  dir: string;
  postgres: { port: number; user: string; password: string };
  log: (line: string) => void;
}): Promise<TemporalServer> {
  const taken = new Set<number>();
  const port = async () => {
    // Temporal stores membership ports in a smallint column (cluster_membership.rpc_port): an ephemeral port above
    // 32767 makes the server exit at start, so ports come from 20000-32767, never from the OS's ephemeral range.
    for (;;) {
      const candidate = 20_000 + Math.floor(Math.random() * 12_768);
      if (!taken.has(candidate) && (await isPortFree(candidate))) return (taken.add(candidate), candidate);
    }
  };
  const services: Record<string, { grpcPort: number; membershipPort: number; httpPort?: number }> = {};
  for (const name of ['frontend', 'matching', 'history', 'worker']) services[name] = { grpcPort: await port(), membershipPort: await port() };
  services.frontend.httpPort = await port();
  const address = `127.0.0.1:${services.frontend.grpcPort}`;
  const store = (database: string, maxConns: number) => [
    `      sql:`,
    `        pluginName: postgres12`,
    `        databaseName: ${database}`,
    `        connectAddr: "127.0.0.1:${options.postgres.port}"`,
    `        connectProtocol: tcp`,
    `        user: ${options.postgres.user}`,
    `        password: ${options.postgres.password}`,
    `        maxConns: ${maxConns}`,
    `        maxIdleConns: ${maxConns}`,
    `        maxConnLifetime: 1h`,
  ];
  const yaml = [
    'log:',
    '  stdout: true',
    '  level: warn',
    'persistence:',
    '  defaultStore: postgres-default',
    '  visibilityStore: postgres-visibility',
    '  numHistoryShards: 4',
    '  datastores:',
    '    postgres-default:',
    ...store('temporal', 20),
    '    postgres-visibility:',
    ...store('temporal_visibility', 4),
    'global:',
    '  membership:',
    '    maxJoinDuration: 30s',
    '    broadcastAddress: "127.0.0.1"',
    'services:',
    ...Object.entries(services).flatMap(([name, s]) => [
      `  ${name}:`,
      '    rpc:',
      `      grpcPort: ${s.grpcPort}`,
      `      membershipPort: ${s.membershipPort}`,
      ...(s.httpPort ? [`      httpPort: ${s.httpPort}`] : []),
      '      bindOnIP: "127.0.0.1"',
    ]),
    'clusterMetadata:',
    '  enableGlobalNamespace: false',
    '  failoverVersionIncrement: 10',
    '  masterClusterName: active',
    '  currentClusterName: active',
    '  clusterInformation:',
    '    active:',
    '      enabled: true',
    '      initialFailoverVersion: 1',
    '      rpcName: frontend',
    `      rpcAddress: "${address}"`,
    'dcRedirectionPolicy:',
    '  policy: noop',
    'dynamicConfigClient:',
    `  filepath: "${path.join(ROOT, 'deploy', 'temporal-dynamic-config.yaml')}"`,
    '  pollInterval: 10s',
    '',
  ].join('\n');
  fs.mkdirSync(path.join(options.dir, 'config'), { recursive: true });
  fs.writeFileSync(path.join(options.dir, 'config', 'production.yaml'), yaml);

  const forward = (chunk: Buffer) => chunk.toString().split('\n').filter(Boolean).forEach(options.log);
  const launch = async () => {
    const child = spawn(options.binaries.server, ['--root', options.dir, '--config', 'config', '--env', 'production', '--allow-no-auth', 'start'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout?.on('data', forward);
    child.stderr?.on('data', forward);
    try {
      await waitForTemporal(address, child, 120_000);
    } catch (error) {
      await stopChild(child, 5_000);
      throw error;
    }
    return child;
  };
  let child = await launch();
  return {
    address,
    get process() {
      return child;
    },
    stop: () => stopChild(child, 20_000),
    start: async () => {
      if (child.exitCode === null && child.signalCode === null) return;
      child = await launch();
    },
  };
}

/**
 * What auto-setup (DEFAULT_NAMESPACE) and the compose file's temporal-search-attributes job do once per cluster: the
 * `default` namespace, then each of the platform's search attributes, with the Temporal CLI.
 */
export async function registerNamespaceAndSearchAttributes(cli: string, address: string, namespace: string): Promise<void> {
  await run(cli, ['operator', 'namespace', 'create', '--address', address, '--namespace', namespace, '--retention', '1d']);
  // A new namespace reaches every service through its namespace cache (refreshed every 10 s by default).
  const deadline = Date.now() + 60_000;
  for (;;) {
    try {
      await run(cli, ['operator', 'namespace', 'describe', '--address', address, '--namespace', namespace]);
      break;
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
  }
  for (const [name, type] of searchAttributeRegistrations()) {
    await run(cli, ['operator', 'search-attribute', 'create', '--address', address, '--namespace', namespace, '--name', name, '--type', type]);
  }
}

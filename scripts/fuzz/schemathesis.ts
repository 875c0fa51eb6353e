import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '..', '..');

/** What the fuzzer checks on every response: no 5xx, and the body matches the operation's documented schema. */
export const FUZZ_CHECKS = ['not_a_server_error', 'response_schema_conformance'];

/**
 * Runs scripts/setup-fuzz.sh (finds, caches or pip-installs schemathesis into .tools/fuzz-venv) and returns the path of
 * its `st` executable. Throws with the script's own explanation when it cannot: callers fail, they never skip.
 */
export function ensureSchemathesis(): string {
  const result = spawnSync('bash', [path.join(ROOT, 'scripts', 'setup-fuzz.sh')], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  if (result.status !== 0) throw new Error(`schemathesis is not available:\n${result.stderr}`);
  return result.stdout.trim().split('\n').pop() as string;
}

/** A token of the given client with all its scopes (client_credentials without a `scope` parameter). */
export async function fetchToken(apiUrl: string, clientId: string, clientSecret: string): Promise<string> {
  const response = await fetch(`${apiUrl}/api/auth/oauth/token`, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/x-www-form-urlencoded',
      Authorization: `Basic ${Buffer.from(`${encodeURIComponent(clientId)}:${encodeURIComponent(clientSecret)}`).toString('base64')}`,
    },
    body: new URLSearchParams({ grant_type: 'client_credentials' }),
    signal: AbortSignal.timeout(10_000),
  });
  const body = (await response.json()) as { access_token?: string };
  if (!response.ok || !body.access_token) throw new Error(`token request failed (${response.status}): ${JSON.stringify(body)}`);
  return body.access_token;
}

export interface FuzzOptions {
  apiUrl: string;
  token: string;
  /** Test cases per operation and phase (schemathesis --max-examples). */
  maxExamples: number;
  /**
   * Phases to run; default all four: examples, coverage, fuzzing, and stateful, which follows the document's OpenAPI
   * links (create → read/update/delete of what it created, plus the links schemathesis infers) in sequences of calls.
   */
  phases?: string[];
  /** Where the JUnit and NDJSON reports go. */
  reportDir: string;
  seed?: number;
  workers?: number;
  /** OAuth client ids the fuzzer must not replace or delete (the one whose token it uses, at least); see hooks.py. */
  protectedClients: string[];
  /** A schemathesis.toml (e.g. from seed.ts binding path parameters to real resources). */
  configFile?: string;
  /** Extra schemathesis arguments, e.g. ['--include-path-regex', '^/api/ledger']. */
  extraArgs?: string[];
  onOutput?: (chunk: string) => void;
}

export interface FuzzResult {
  exitCode: number | null;
  output: string;
  args: string[];
}

/**
 * Runs `st run` over every operation of the live OpenAPI document, authenticated with `token`, and resolves with its
 * exit code (0 = no finding) and full output. Only ever targets the given 127.0.0.1 API.
 */
export function runSchemathesis(cli: string, options: FuzzOptions): Promise<FuzzResult> {
  fs.mkdirSync(options.reportDir, { recursive: true });
  const args = [
    ...(options.configFile ? ['--config-file', options.configFile] : []),
    'run',
    `${options.apiUrl}/api/openapi.json`,
    '--url',
    options.apiUrl,
    '--header',
    `Authorization: Bearer ${options.token}`,
    '--checks',
    FUZZ_CHECKS.join(','),
    '--phases',
    (options.phases ?? ['examples', 'coverage', 'fuzzing', 'stateful']).join(','),
    '--max-examples',
    String(options.maxExamples),
    '--workers',
    String(options.workers ?? 1),
    '--request-timeout',
    '30',
    '--max-redirects',
    '0',
    '--generation-database',
    'none',
    '--suppress-health-check',
    'all',
    '--continue-on-failure',
    '--no-color',
    '--output-truncate',
    'false',
    '--report',
    'junit,ndjson',
    '--report-dir',
    options.reportDir,
    ...(options.seed !== undefined ? ['--seed', String(options.seed)] : []),
    ...(options.extraArgs ?? []),
  ];
  return new Promise((resolve, reject) => {
    const child = spawn(cli, args, {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: {
        ...process.env,
        SCHEMATHESIS_HOOKS: path.join(__dirname, 'hooks.py'),
        FUZZ_PROTECTED_CLIENTS: options.protectedClients.join(','),
        NO_COLOR: '1',
      },
    });
    let output = '';
    const collect = (chunk: Buffer) => {
      output += chunk.toString();
      options.onOutput?.(chunk.toString());
    };
    child.stdout.on('data', collect);
    child.stderr.on('data', collect);
    child.once('error', reject);
    child.once('close', (code) =>
      resolve({ exitCode: code, output, args: args.map((a) => (a.startsWith('Authorization:') ? 'Authorization: Bearer ***' : a)) }),
    );
  });
}

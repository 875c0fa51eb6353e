import fs from 'node:fs';
import path from 'node:path';
import { parseJson, stringifyJson } from '../../lib/json';

/**
 * Where a running `npm start` says where it runs, so helper scripts started from another shell (`npm run token`,
 * `npm run auth:rotate-key`) find its API, data directory and database without the caller repeating DATA_DIR, PORT
 * or DATABASE_URL. The file sits at a fixed place in the checkout (`runFile` in lib/config.ts; not in DATA_DIR, which
 * is one of the things it records), is readable by its owner only (it names the database URL) and is removed when `npm start` stops.
 */
export interface RunFile {
  pid: number;
  apiUrl: string;
  dataDir: string;
  databaseUrl: string;
  temporalAddress: string;
  temporalUiUrl?: string;
  startedAt: string;
}

export function writeRunFile(run: RunFile, file: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, stringifyJson(run, 2), { mode: 0o600 });
}

/** Removes the file only if it is still this process's: a second `npm start` may have replaced it. */
export function removeRunFile(file: string, pid = process.pid): void {
  const current = readRunFile(file, { alive: false });
  if (current && current.pid !== pid) return;
  fs.rmSync(file, { force: true });
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to someone else; it is still running.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The recorded run, or undefined when there is none or (with `alive`, the default) its process has gone. */
export function readRunFile(file: string, options: { alive: boolean } = { alive: true }): RunFile | undefined {
  let run: RunFile;
  try {
    run = parseJson(fs.readFileSync(file, 'utf8')) as RunFile;
  } catch {
    return undefined;
  }
  if (typeof run?.pid !== 'number' || typeof run.apiUrl !== 'string' || typeof run.dataDir !== 'string') return undefined;
  if (options.alive && !isAlive(run.pid)) return undefined;
  return run;
}

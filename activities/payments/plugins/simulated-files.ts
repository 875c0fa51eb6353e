import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { parseJson, stringifyJson } from '../../../lib/json';
import { invalidData } from './plugin';

/** The files the simulated provider keeps its records in (simulated.ts and its reversal and open-banking parts). */

/**
 * Keys and references become file names through a hash: any length and alphabet maps to a short safe name that
 * cannot leave its folder, and the same key always maps to the same file (the idempotency of transfers).
 */
export const fileName = (key: string): string => `${createHash('sha256').update(key).digest('hex').slice(0, 40)}.json`;

export async function readJson(file: string): Promise<unknown | undefined> {
  let text: string;
  try {
    text = await fs.readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  try {
    return parseJson(text);
  } catch {
    throw invalidData(`${path.basename(file)}: not valid JSON`);
  }
}

export async function readFolder(folder: string): Promise<Array<{ name: string; data: unknown }>> {
  const names = await fs.readdir(folder).catch(() => [] as string[]);
  const out = [];
  for (const name of names.filter((n) => n.endsWith('.json')).sort()) out.push({ name, data: await readJson(path.join(folder, name)) });
  return out;
}

/** Write-then-rename: a concurrent fetch never reads half a file. */
export async function writeJson(file: string, value: unknown): Promise<void> {
  await fs.mkdir(path.dirname(file), { recursive: true });
  const temp = `${file}.${process.pid}.${Date.now()}.tmp`;
  await fs.writeFile(temp, stringifyJson(value, 2));
  await fs.rename(temp, file);
}

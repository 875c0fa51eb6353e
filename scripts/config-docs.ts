import fs from 'node:fs';
import path from 'node:path';
import { settingsReference } from '../lib/settings-reference';

/** Writes docs/configuration.md from the settings schema (lib/config.ts); test/unit/config.test.ts keeps them equal. */
const file = path.join(__dirname, '..', 'docs', 'configuration.md');
fs.writeFileSync(file, settingsReference());
process.stdout.write(`wrote ${path.relative(process.cwd(), file)}\n`);

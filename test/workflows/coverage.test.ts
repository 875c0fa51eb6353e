import fs from 'node:fs';
import path from 'node:path';
import * as workflows from '../../workflows';

/** Every workflow type the worker registers is run by a test of this tier (by its name, in a start or execute call). */
it('every workflow type has a time-skipping test', () => {
  const sources = fs
    .readdirSync(__dirname)
    .filter((file) => file.endsWith('.test.ts'))
    .map((file) => fs.readFileSync(path.join(__dirname, file), 'utf8'))
    .join('\n');
  const started = new Set([...sources.matchAll(/(?:execute|start)\(\s*'(\w+)'/g)].map((m) => m[1]));
  // payments.test.ts starts its workflows through a helper whose first argument is the type.
  for (const m of sources.matchAll(/execute(?:<\w+>)?\('(\w+)'/g)) started.add(m[1]);
  expect(Object.keys(workflows).filter((type) => !started.has(type))).toEqual([]);
});

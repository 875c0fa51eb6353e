import fs from 'node:fs';
import path from 'node:path';

/**
 * No import cycles among the platform's modules. A cycle makes load order decide which module sees `undefined` for
 * the other's exports, and it means two layers depend on each other, which the layering rules (eslint.config.mjs)
 * exist to prevent. Type-only imports are erased at compile time, so they cannot form a runtime cycle and are ignored:
 * an engine names its workflow's type, the workflow names its activities' types, and the activities call the area.
 */
const ROOT = path.resolve(__dirname, '../..');
const FOLDERS = ['api', 'areas', 'activities', 'db', 'lib', 'numscript', 'workflows', 'scripts'];
const IMPORT = /^\s*(import|export)\s+(type\s+)?(?:[^'";]*?\sfrom\s+)?['"](\.{1,2}\/[^'"]+)['"]/gm;

function sourceFiles(folder: string): string[] {
  if (!fs.existsSync(folder)) return [];
  return fs.readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(folder, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [full] : [];
  });
}

function resolve(from: string, specifier: string): string | undefined {
  const base = path.resolve(path.dirname(from), specifier);
  return [`${base}.ts`, path.join(base, 'index.ts')].find((candidate) => fs.existsSync(candidate));
}

/** Value imports only: `import type` and `export type` lines, and imports whose every name is `type X`, are skipped. */
export function valueImports(file: string): string[] {
  const text = fs.readFileSync(file, 'utf8');
  const out: string[] = [];
  for (const match of text.matchAll(IMPORT)) {
    if (match[2]) continue;
    const names = /^\s*(?:import|export)\s*\{([^}]*)\}/.exec(match[0])?.[1];
    const onlyTypes =
      names !== undefined &&
      names
        .split(',')
        .map((n) => n.trim())
        .filter(Boolean)
        .every((n) => n.startsWith('type '));
    if (onlyTypes) continue;
    const target = resolve(file, match[3]);
    if (target) out.push(target);
  }
  return out;
}

/** Strongly connected components of more than one module (Tarjan), each listed as relative paths. */
function cycles(graph: Map<string, string[]>): string[][] {
  let index = 0;
  const indexOf = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (node: string) => {
    indexOf.set(node, index);
    low.set(node, index++);
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!indexOf.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (onStack.has(next)) low.set(node, Math.min(low.get(node)!, indexOf.get(next)!));
    }
    if (low.get(node) === indexOf.get(node)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(path.relative(ROOT, member));
      } while (member !== node);
      if (component.length > 1) found.push(component.sort());
    }
  };
  for (const node of graph.keys()) if (!indexOf.has(node)) visit(node);
  return found;
}

describe('module graph', () => {
  const files = FOLDERS.flatMap((folder) => sourceFiles(path.join(ROOT, folder)));
  const graph = new Map(files.map((file) => [file, valueImports(file)]));

  it('reads the imports of every module (the check is not vacuous)', () => {
    expect(files.length).toBeGreaterThan(100);
    const edges = [...graph.values()].reduce((sum, targets) => sum + targets.length, 0);
    expect(edges).toBeGreaterThan(files.length);
  });

  it('finds a cycle when there is one', () => {
    const a = path.join(ROOT, 'a.ts');
    const b = path.join(ROOT, 'b.ts');
    expect(
      cycles(
        new Map([
          [a, [b]],
          [b, [a]],
        ]),
      ),
    ).toEqual([['a.ts', 'b.ts']]);
  });

  it('has no import cycles', () => {
    expect(cycles(graph)).toEqual([]);
  });
});

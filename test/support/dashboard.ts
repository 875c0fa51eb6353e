import fs from 'node:fs';
import path from 'node:path';

const PROMQL_WORDS = new Set([
  'sum',
  'by',
  'without',
  'rate',
  'irate',
  'increase',
  'histogram_quantile',
  'max',
  'min',
  'avg',
  'count',
  'le',
  'on',
  'ignoring',
  'and',
  'or',
  'unless',
]);

/**
 * The metric families the shipped Grafana dashboard queries: every identifier of its PromQL expressions that is not a
 * function, keyword or label (label matchers and `by (...)` lists are removed first), with a histogram's series suffix
 * (_bucket, _sum, _count) taken off so the name is the family's, as `# TYPE` lines name it.
 */
export function dashboardMetricNames(): string[] {
  const file = path.resolve(__dirname, '../../deploy/grafana/dashboards/financial-platform.json');
  const dashboard = JSON.parse(fs.readFileSync(file, 'utf8')) as { panels: Array<{ targets: Array<{ expr: string }> }> };
  const names = new Set<string>();
  for (const panel of dashboard.panels) {
    for (const { expr } of panel.targets) {
      const bare = expr
        .replace(/\{[^}]*\}/g, '')
        .replace(/\b(by|without)\s*\([^)]*\)/g, '')
        .replace(/\[[^\]]*\]/g, '');
      for (const [word] of bare.matchAll(/[a-zA-Z_:][a-zA-Z0-9_:]*/g)) {
        if (PROMQL_WORDS.has(word)) continue;
        names.add(word.replace(/_(bucket|sum|count)$/, ''));
      }
    }
  }
  return [...names].sort();
}

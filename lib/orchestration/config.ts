/**
 * Workflow configurations: the stage types, their validation and the substitution of `${variable}` references. Pure
 * and deterministic, so the API validates a config at creation with the very code the instance workflow uses to
 * resolve each stage when it starts.
 */

import { parseStage, stageTypeOf } from './stage-parse';
import { ConfigError, type ResolvedStage, type StageType, type WorkflowConfig } from './stage-types';

export * from './stage-types';
export { stageTypeOf } from './stage-parse';

const VARIABLE = /\$\{([^}]*)\}/g;

export const hasVariable = (value: unknown): boolean => typeof value === 'string' && /\$\{[^}]*\}/.test(value);

/** Replaces every `${name}` in every string leaf; a missing variable becomes "" (Formance does the same). */
export function substitute(value: unknown, variables: Record<string, string>): unknown {
  if (typeof value === 'string') return value.replace(VARIABLE, (_m, name: string) => variables[name.trim()] ?? '');
  if (Array.isArray(value)) return value.map((item) => substitute(item, variables));
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, substitute(v, variables)]));
  }
  return value;
}

/** The name a stage carries in history and in the Web UI (Formance's child workflow type names). */
export function stageName(type: StageType): string {
  return (
    'Run' +
    type
      .split('_')
      .map((part) => part[0].toUpperCase() + part.slice(1))
      .join('')
  );
}

/** Validates a whole configuration as stored: variables are allowed in every string leaf. Throws ConfigError. */
export function validateConfig(config: unknown): WorkflowConfig {
  if (!config || typeof config !== 'object' || Array.isArray(config)) throw new ConfigError('config', 'must be an object');
  const { name, stages, ...rest } = config as Record<string, unknown>;
  const unknown = Object.keys(rest);
  if (unknown.length > 0) throw new ConfigError(unknown[0], 'unknown field (a config has name and stages)');
  if (name !== undefined && typeof name !== 'string') throw new ConfigError('name', 'must be a string');
  if (stages !== undefined && !Array.isArray(stages)) throw new ConfigError('stages', 'must be an array');
  const list = (stages ?? []) as unknown[];
  list.forEach((stage, index) => parseStage(stage, index, false));
  return { ...(name !== undefined ? { name } : {}), stages: list as Array<Record<string, unknown>> };
}

/**
 * Resolves stage `index` with the run's variables: substitutes, applies defaults, converts amounts to BigInt and
 * validates the result with no variable left. Throws ConfigError (the stage then fails with VALIDATION).
 */
export function resolveStage(stage: Record<string, unknown>, index: number, variables: Record<string, string>): ResolvedStage {
  return parseStage(substitute(stage, variables), index, true);
}

/**
 * What a stage shows in op 13 and in its start mark: its name and its input with the run's variables substituted,
 * plus the resolved stage, or the error it fails with when it does not resolve. The instance workflow and op 13 both
 * call this, so stage 0, whose start the API records (InstanceInput.firstStageStartedAt), reads as any later stage.
 */
export function describeStage(
  raw: Record<string, unknown>,
  number: number,
  variables: Record<string, string>,
): { name: string; input: unknown; stage?: ResolvedStage; error?: string } {
  try {
    const stage = resolveStage(raw, number, variables);
    return { name: stageName(stage.type), input: stage.spec, stage };
  } catch (e) {
    if (!(e instanceof ConfigError)) throw e;
    return { name: stageNameOf(raw, number), input: Object.values(substitute(raw, variables) as object)[0], error: e.message };
  }
}

function stageNameOf(raw: unknown, number: number): string {
  try {
    return stageName(stageTypeOf(raw, `stages[${number}]`));
  } catch {
    return 'RunUnknown';
  }
}

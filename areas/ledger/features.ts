import { validationError } from '../../lib/errors';
import { NUMSCRIPT_FEATURES } from '../../numscript';

/**
 * Formance's ledger features (`features` of V2CreateLedgerRequest and V2Ledger): each name with the values Formance
 * defines, and the one value that is true of this platform, which cannot be switched. A creator may name a feature
 * with the value that is true here (it is stored as asked); a value Formance defines that this platform does not do is
 * refused, since accepting it would promise a behaviour the ledger does not have.
 */
interface Feature {
  formance: readonly string[];
  effective: string;
  /** Other values a creator may choose for this ledger. */
  choosable?: readonly string[];
  /** Why the effective value is what it is, for the refusal's message. */
  why: string;
}

export const FEATURES: Record<string, Feature> = {
  HASH_LOGS: {
    formance: ['SYNC', 'ASYNC', 'DISABLED'],
    effective: 'ASYNC',
    choosable: ['DISABLED'],
    why: 'logs are hashed by the hasher behind the commit (ASYNC) or not at all (DISABLED)',
  },
  MOVES_HISTORY: { formance: ['ON', 'OFF'], effective: 'ON', why: 'every transaction keeps its postings with their post-commit volumes' },
  MOVES_HISTORY_POST_COMMIT_EFFECTIVE_VOLUMES: {
    formance: ['SYNC', 'DISABLED'],
    effective: 'DISABLED',
    why: 'effective volumes (ordered by timestamp) are not computed: effectiveVolumes mirror volumes',
  },
  ACCOUNT_METADATA_HISTORY: {
    formance: ['SYNC', 'DISABLED'],
    effective: 'DISABLED',
    why: 'only the current account metadata is kept (changes are in the log)',
  },
  TRANSACTION_METADATA_HISTORY: {
    formance: ['SYNC', 'DISABLED'],
    effective: 'DISABLED',
    why: 'only the current transaction metadata is kept (changes are in the log)',
  },
  INDEX_ADDRESS_SEGMENTS: { formance: ['ON', 'OFF'], effective: 'OFF', why: 'address patterns are matched without a per-segment index' },
  INDEX_TRANSACTION_ACCOUNTS: { formance: ['ON', 'OFF'], effective: 'ON', why: 'transactions are indexed by their source and destination accounts' },
};

/**
 * Numscript's experimental flags, by Formance's names (`experimental-oneof`, ...), as ledger features: `ON` lets every
 * script written to the ledger use the construct, as the script's own `#![feature("…")]` does for itself. Formance
 * turns them on for a whole deployment; here a ledger chooses, so one ledger can try a construct without the others.
 * They are listed among a ledger's features only when its creator named them, so a ledger created without them
 * answers Formance's seven features exactly.
 */
const NUMSCRIPT_FLAG_VALUES = ['ON', 'OFF'] as const;
const isNumscriptFlag = (name: string): boolean => Object.prototype.hasOwnProperty.call(NUMSCRIPT_FEATURES, name);

/** The features of a ledger: what its creator chose where a choice exists, otherwise what the platform does. */
export function effectiveFeatures(requested: Record<string, string> | null = null): Record<string, string> {
  return {
    ...Object.fromEntries(
      Object.entries(FEATURES).map(([name, f]) => [
        name,
        requested?.[name] !== undefined && f.choosable?.includes(requested[name]) ? requested[name] : f.effective,
      ]),
    ),
    ...Object.fromEntries(Object.entries(requested ?? {}).filter(([name]) => isNumscriptFlag(name))),
  };
}

/** The Numscript flags a ledger turns on, for compileNumscript. */
export const numscriptFlags = (requested: Record<string, string> | null): string[] =>
  Object.entries(requested ?? {})
    .filter(([name, value]) => isNumscriptFlag(name) && value === 'ON')
    .map(([name]) => name);

/** Whether a ledger's logs are hashed (HASH_LOGS other than DISABLED). */
export const hashesLogs = (requested: Record<string, string> | null): boolean => effectiveFeatures(requested).HASH_LOGS !== 'DISABLED';

/**
 * Checks a creator's features: an unknown name or a value Formance does not define is a 400, and so is a value
 * Formance defines that is not what this platform does. @throws ApiError VALIDATION
 */
export function assertFeatures(requested: unknown): asserts requested is Record<string, string> {
  if (requested === null || typeof requested !== 'object' || Array.isArray(requested)) throw validationError('features: must be an object');
  for (const [name, value] of Object.entries(requested)) {
    if (isNumscriptFlag(name)) {
      if (!(NUMSCRIPT_FLAG_VALUES as readonly unknown[]).includes(value))
        throw validationError(`features.${name}: must be one of ${NUMSCRIPT_FLAG_VALUES.join(', ')}`);
      continue;
    }
    const feature = FEATURES[name];
    if (!feature) {
      throw validationError(
        `features.${name}: unknown feature; features are ${[...Object.keys(FEATURES), ...Object.keys(NUMSCRIPT_FEATURES)].join(', ')}`,
      );
    }
    if (typeof value !== 'string' || !feature.formance.includes(value)) {
      throw validationError(`features.${name}: must be one of ${feature.formance.join(', ')}`);
    }
    if (value !== feature.effective && !feature.choosable?.includes(value)) {
      const allowed = [feature.effective, ...(feature.choosable ?? [])].join(' or ');
      throw validationError(`features.${name}: ${value} is not supported: ${feature.why}, so ${name} is ${allowed} here`);
    }
  }
}

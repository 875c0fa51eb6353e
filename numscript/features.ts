/**
 * Formance's experimental feature flags, by their Formance names. A script uses an experimental construct only when
 * the flag is on: given by the caller (`compileNumscript(source, { features })`, the ledger's features) or by the
 * script itself (`#![feature("experimental-oneof")]`). Without it the script is refused at compile time.
 */
export const FEATURES = {
  'experimental-oneof': 'oneof',
  'experimental-overdraft-function': 'overdraft()',
  'experimental-mid-script-function-call': 'a function call outside a var origin (or an expression as an origin)',
  'experimental-get-asset-function': 'get_asset()',
  'experimental-get-amount-function': 'get_amount()',
  'experimental-account-interpolation': 'an account address with variables (@users:$id)',
  'experimental-asset-colors': 'a colored source (@acc \\ "COLOR")',
  'experimental-asset-scaling': 'asset scaling (with scaling through)',
} as const;

export type Feature = keyof typeof FEATURES;

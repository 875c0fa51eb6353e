import { OPEN_BANKING_CAPABILITIES, resolveSimulatedDirectory, type ConnectorPluginModule } from '../../../areas/payments';
import { simulatedPlugin } from './simulated';

export interface SimulatedConfig {
  name: string;
  directory: string;
  pollingPeriod: string;
}

/**
 * The simulated provider, a demo driven by files: it fetches the three kinds, conversions and orders, executes every
 * write and reversal, and also takes accounts and payments recorded by clients (Formance's manual records) and the
 * open-banking flows. Its directory is confined (resolveSimulatedDirectory) at install and again in the worker.
 */
export const simulatedConnector: ConnectorPluginModule = {
  name: 'simulated',
  capabilities: [
    'FETCH_ACCOUNTS',
    'FETCH_BALANCES',
    'FETCH_EXTERNAL_ACCOUNTS',
    'FETCH_PAYMENTS',
    'CREATE_BANK_ACCOUNT',
    'CREATE_TRANSFER',
    'CREATE_PAYOUT',
    'ALLOW_FORMANCE_ACCOUNT_CREATION',
    'ALLOW_FORMANCE_PAYMENT_CREATION',
    'FETCH_CONVERSIONS',
    'FETCH_ORDERS',
  ],
  operations: ['REVERSE_TRANSFER', 'REVERSE_PAYOUT'],
  openBankingCapabilities: OPEN_BANKING_CAPABILITIES,
  // Formance's file-driven dummypay: v1 calls it DUMMY-PAY, and names its polling period `filePollingPeriod`.
  v1Names: ['DUMMY-PAY', 'DUMMYPAY', 'SIMULATED'],
  v1: { aliases: { filePollingPeriod: 'pollingPeriod' } },
  config: {
    example: { name: 'demo', directory: 'simulated/demo', pollingPeriod: '1m' },
    schema: {
      properties: {
        directory: {
          type: 'string',
          minLength: 1,
          maxLength: 4096,
          description: 'Inside DATA_DIR (relative paths resolve there) or PAYMENTS_SIMULATED_DIRS.',
        },
      },
      required: ['directory'],
    },
    sdkType: 'Dummypay',
    normalize: (config, { dataDir }) => ({ ...config, directory: resolveSimulatedDirectory(String(config.directory), dataDir) }),
  },
  create: (config, { dataDir }) => simulatedPlugin(resolveSimulatedDirectory(String(config.directory), dataDir)),
};

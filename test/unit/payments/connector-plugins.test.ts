import { ApplicationFailure } from '@temporalio/common';
import { classified } from '../../../activities/payments/classified';
import path from 'node:path';
import { BUILT_IN_CONNECTOR_PLUGINS, loadConnectorPlugins } from '../../../activities/payments/plugins';
import { stripeConnector } from '../../../activities/payments/plugins/stripe-connector';
import { connectorPlugins, contractProblem } from '../../../areas/payments';
import { loadConfig } from '../../../lib/config';

const root = path.resolve(__dirname, '../../..');
const fixture = (name: string) => path.join(root, 'test', 'fixtures', 'payments-plugin', name);

describe('connector plugins loaded from PAYMENTS_CONNECTOR_PLUGINS', () => {
  it('registers the built-in plugins, then each module of the setting', () => {
    const loaded = loadConnectorPlugins([fixture('fixturebank.ts')]);
    expect(loaded.map((p) => p.name)).toEqual(['fixturebank']);
    expect(connectorPlugins().map((p) => p.name)).toEqual([...BUILT_IN_CONNECTOR_PLUGINS.map((p) => p.name), 'fixturebank']);
    // Loading again (the API and the worker may share a process in tests) changes nothing.
    expect(() => loadConnectorPlugins([fixture('fixturebank.ts')])).not.toThrow();
  });

  it.each([
    ['missing.ts', /^PAYMENTS_CONNECTOR_PLUGINS: .*missing\.ts: cannot be loaded/],
    ['broken.ts', /^PAYMENTS_CONNECTOR_PLUGINS: .*broken\.ts: not a connector plugin: capabilities: must be a list of Formance's capability names/],
  ])('refuses %s naming the setting and the module', (name, message) => {
    expect(() => loadConnectorPlugins([fixture(name)])).toThrow(message);
  });

  it('holds a module to the contract', () => {
    expect(contractProblem(stripeConnector)).toBeUndefined();
    expect(contractProblem(undefined)).toMatch(/does not export a connector plugin/);
    expect(contractProblem({ ...stripeConnector, name: 'Stripe Two' })).toMatch(/^name:/);
    expect(contractProblem({ ...stripeConnector, create: undefined })).toMatch(/^create:/);
    expect(contractProblem({ ...stripeConnector, config: { ...stripeConnector.config, secrets: ['password'] } })).toMatch(/^config\.secrets:/);
    expect(contractProblem({ ...stripeConnector, config: { schema: { properties: { name: { type: 'string' } } } } })).toMatch(
      /^config\.schema\.properties\.name: the platform's own member/,
    );
    expect(contractProblem({ ...stripeConnector, config: { schema: { properties: { n: { type: 'nonsense' } } } } })).toMatch(
      /^config\.schema: not a valid JSON schema/,
    );
  });

  it('refuses a second plugin under a loaded name', () => {
    expect(() => loadConnectorPlugins([fixture('stripe-again.ts')])).toThrow(
      /PAYMENTS_CONNECTOR_PLUGINS: .*stripe-again\.ts: a connector plugin named "stripe" is already registered/,
    );
  });

  it('reads the setting as comma-separated module paths', () => {
    expect(loadConfig({ PAYMENTS_CONNECTOR_PLUGINS: './a.js, /opt/b.js' }).paymentsConnectorPlugins).toEqual([path.resolve('a.js'), '/opt/b.js']);
    expect(() => loadConfig({ PAYMENTS_CONNECTOR_PLUGINS: 'a.js,,b.js' })).toThrow(/PAYMENTS_CONNECTOR_PLUGINS/);
  });
});

describe("a plugin's errors in the worker", () => {
  const failureOf = (error: unknown) =>
    classified(async () => {
      throw error;
    }).then(
      () => undefined,
      (failure: unknown) => failure,
    );

  it('a plain error marked nonRetryable is a definitive refusal (no Temporal library needed in the module)', async () => {
    const failure = await failureOf(Object.assign(new Error('Acme answered 400 to POST /transfers'), { nonRetryable: true }));
    expect(failure).toBeInstanceOf(ApplicationFailure);
    expect(failure).toMatchObject({ type: 'PROVIDER_REJECTED', nonRetryable: true, message: 'Acme answered 400 to POST /transfers' });
  });

  it('any other error is left to be retried', async () => {
    const error = new Error('Acme answered 503 to GET /payments');
    expect(await failureOf(error)).toBe(error);
    const retryable = ApplicationFailure.retryable('rate limited', 'PROVIDER_RATE_LIMITED');
    expect(await failureOf(retryable)).toBe(retryable);
  });
});

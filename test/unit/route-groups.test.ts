import { routeGroup, routeTable } from '../../api/app';
import { routesWithBuiltInPlugins } from '../support/routes';

const allRoutes = routesWithBuiltInPlugins();

describe('routeGroup', () => {
  it.each([
    ['/api/ledger/v2/main/transactions/3', '/api/ledger'],
    ['/API/Ledger/v2', '/api/ledger'],
    ['/api/ledger', '/api/ledger'],
    ['/api/ledger/', '/api/ledger'],
    ['/api', '/api/'],
    ['/_healthcheck', '/_healthcheck'],
    ['/', '/'],
  ])('puts %s in %s', (path, group) => expect(routeGroup(path)).toBe(group));

  it('gives every route a static group, and each area its own', () => {
    const groups = new Set(allRoutes.map((route) => routeGroup(route.spec.path)));
    for (const group of groups) expect(group).not.toMatch(/[{}:]/);
    expect([...groups]).toEqual(
      expect.arrayContaining(['/api/ledger', '/api/payments', '/api/wallets', '/api/orchestration', '/api/webhooks', '/api/auth']),
    );
  });

  it('puts a path and its trailing-slash form in one table, and paths of other lengths in others', () => {
    expect(routeTable('/api/ledger/main/transactions/3')).toBe(routeTable('/API/Ledger/main/transactions/3/'));
    expect(routeTable('/api/ledger/main/transactions/3')).toBe(routeTable('/api/ledger/{ledger}/transactions/{id}'));
    expect(routeTable('/api/ledger/main/transactions')).not.toBe(routeTable('/api/ledger/main/transactions/3'));
    expect(routeTable('/api/ledger/main/transactions/3/metadata')).not.toBe(routeTable('/api/ledger/main/transactions/3'));
    expect(routeTable('/api/ledger/main/transactions/3')).not.toBe(routeTable('/api/payments/main/transactions/3'));
  });

  it('puts every route in the table of the paths it serves, with or without a trailing slash', () => {
    for (const route of allRoutes) {
      const concrete = route.spec.path.replace(/\{[^}]+\}/g, 'x1');
      expect([route.spec.path, routeTable(concrete)]).toEqual([route.spec.path, routeTable(route.spec.path)]);
      expect([route.spec.path, routeTable(`${concrete}/`)]).toEqual([route.spec.path, routeTable(route.spec.path)]);
    }
  });
});

import { buildOpenApiDocument } from '../../api/openapi/document';
import { routesWithBuiltInPlugins } from '../support/routes';

const allRoutes = routesWithBuiltInPlugins();

type Operation = { responses: Record<string, { links?: Record<string, { operationId: string; parameters: Record<string, string> }> }> };
const doc = buildOpenApiDocument(allRoutes, { publicUrl: 'http://127.0.0.1:8080' });
const operation = (path: string, method: string) => (doc.paths[path] as Record<string, Operation>)[method];

/** The links the stateful fuzzing phase and client generators follow: from a create to the operations on what it made. */
describe('OpenAPI links', () => {
  it('link a create answering {data: {id}} to the reads and changes of that id', () => {
    const links = operation('/api/wallets/wallets', 'post').responses['201'].links!;
    expect(links.getWallet).toEqual({ operationId: 'getWallet', parameters: { 'path.id': '$response.body#/data/id' } });
    expect(Object.keys(links)).toEqual(expect.arrayContaining(['creditWallet', 'debitWallet', 'updateWallet']));
  });

  it("carry the create's own path parameters along", () => {
    const links = operation('/api/ledger/v2/{ledger}/transactions', 'post').responses['200'].links!;
    expect(links.getTransaction.parameters).toEqual({ 'path.id': '$response.body#/data/id', 'path.ledger': '$request.path.ledger' });
  });

  it('read the id from {data: "<id>"} where a create answers only the id (payments v3)', () => {
    const links = operation('/api/payments/v3/bank-accounts', 'post').responses['201'].links!;
    expect(Object.values(links).map((link) => Object.values(link.parameters))).toEqual(Object.values(links).map(() => ['$response.body#/data']));
  });

  it('add the links a route declares, version for version (a run links to its instance under /instances)', () => {
    const v2 = operation('/api/orchestration/v2/workflows/{workflowID}/instances', 'post').responses['200'].links!;
    expect(v2.readInstance).toEqual({ operationId: 'readInstance', parameters: { 'path.instanceID': '$response.body#/data/id' } });
    const v1 = operation('/api/orchestration/workflows/{workflowID}/instances', 'post').responses['200'].links!;
    expect(Object.keys(v1).sort()).toEqual(['abortInstanceV1', 'readInstanceHistoryV1', 'readInstanceV1', 'sendInstanceEventV1']);
    expect(v1.readInstanceV1.operationId).toBe('readInstanceV1');
  });

  it('put no links on reads or on error responses', () => {
    expect(operation('/api/wallets/wallets/{id}', 'get').responses['200'].links).toBeUndefined();
    expect(operation('/api/wallets/wallets', 'post').responses['400'].links).toBeUndefined();
  });
});

import { createClient, createClientSecret, deleteClient, deleteClientSecret, getClient, listClients, updateClient } from '../../../areas/auth';
import { authenticate } from '../../middleware/authenticate';
import { validate } from '../../middleware/validate';
import { defineRoute } from '../../routing';
import { clientInputSchema, clientSchema, createdSecretSchema, secretInputSchema } from '../../schemas/auth';
import { dataOf, objectSchema, stringSchema } from '../../schemas/common';

const tags = ['auth'];
const clientParams = objectSchema({ clientId: stringSchema({ minLength: 1, maxLength: 200 }) }, ['clientId']);
const secretParams = objectSchema({ clientId: stringSchema({ minLength: 1 }), secretId: stringSchema({ minLength: 1 }) }, ['clientId', 'secretId']);
const noContent = { 204: { description: 'Deleted' } };

export const listClientsRoute = defineRoute(
  {
    method: 'get',
    path: '/api/auth/clients',
    operationId: 'listClients',
    summary: 'List OAuth 2.0 clients (op 2)',
    tags,
    responses: { 200: { description: 'Clients', schema: dataOf({ type: 'array', items: clientSchema }) } },
  },
  authenticate('auth:read'),
  validate({}),
  async function listClientsHandler(ctx) {
    ctx.body = { data: await listClients(ctx.deps.db) };
  },
);

export const readClientRoute = defineRoute(
  {
    method: 'get',
    path: '/api/auth/clients/{clientId}',
    operationId: 'readClient',
    summary: 'Read an OAuth 2.0 client (op 1)',
    tags,
    responses: { 200: { description: 'Client', schema: dataOf(clientSchema) } },
  },
  authenticate('auth:read'),
  validate({ params: clientParams }),
  async function readClientHandler(ctx) {
    ctx.body = { data: await getClient(ctx.deps.db, ctx.state.input.params.clientId) };
  },
);

export const createClientRoute = defineRoute(
  {
    method: 'post',
    path: '/api/auth/clients',
    operationId: 'createClient',
    summary: 'Register a client',
    tags,
    responses: { 201: { description: 'Created', schema: dataOf(clientSchema) } },
  },
  authenticate('auth:write'),
  validate({ body: clientInputSchema }),
  async function createClientHandler(ctx) {
    ctx.status = 201;
    ctx.body = { data: await createClient(ctx.deps.db, ctx.state.input.body) };
  },
);

export const updateClientRoute = defineRoute(
  {
    method: 'put',
    path: '/api/auth/clients/{clientId}',
    operationId: 'updateClient',
    summary: "Replace a client's properties (secrets are kept)",
    tags,
    responses: { 200: { description: 'Updated', schema: dataOf(clientSchema) } },
  },
  authenticate('auth:write'),
  validate({ params: clientParams, body: clientInputSchema }),
  async function updateClientHandler(ctx) {
    ctx.body = { data: await updateClient(ctx.deps.db, ctx.state.input.params.clientId, ctx.state.input.body) };
  },
);

export const deleteClientRoute = defineRoute(
  {
    method: 'delete',
    path: '/api/auth/clients/{clientId}',
    operationId: 'deleteClient',
    summary: 'Delete a client and its secrets',
    tags,
    responses: noContent,
  },
  authenticate('auth:write'),
  validate({ params: clientParams }),
  async function deleteClientHandler(ctx) {
    await deleteClient(ctx.deps.db, ctx.state.input.params.clientId);
    ctx.status = 204;
  },
);

export const createSecretRoute = defineRoute(
  {
    method: 'post',
    path: '/api/auth/clients/{clientId}/secrets',
    operationId: 'createClientSecret',
    summary: 'Create a client secret; its clear value is returned once',
    tags,
    responses: { 200: { description: 'Created secret', schema: dataOf(createdSecretSchema) } },
  },
  authenticate('auth:write'),
  validate({ params: clientParams, body: secretInputSchema, bodyRequired: false }),
  async function createSecretHandler(ctx) {
    ctx.body = { data: await createClientSecret(ctx.deps.db, ctx.state.input.params.clientId, ctx.state.input.body ?? {}) };
  },
);

export const deleteSecretRoute = defineRoute(
  {
    method: 'delete',
    path: '/api/auth/clients/{clientId}/secrets/{secretId}',
    operationId: 'deleteClientSecret',
    summary: 'Delete a client secret',
    tags,
    responses: noContent,
  },
  authenticate('auth:write'),
  validate({ params: secretParams }),
  async function deleteSecretHandler(ctx) {
    await deleteClientSecret(ctx.deps.db, ctx.state.input.params.clientId, ctx.state.input.params.secretId);
    ctx.status = 204;
  },
);

export const authRoutes = [
  listClientsRoute,
  readClientRoute,
  createClientRoute,
  updateClientRoute,
  deleteClientRoute,
  createSecretRoute,
  deleteSecretRoute,
];

import { createExporter, deleteExporter, getExporter, listExporters, presentExporter, updateExporter, type ExporterRow } from '../../../areas/ledger';
import { authenticate } from '../../middleware/authenticate';
import { validate } from '../../middleware/validate';
import { cursorEnvelope } from '../../pagination';
import { defineRoute } from '../../routing';
import { cursorOf, dataOf } from '../../schemas/common';
import { exporterConfigurationSchema, exporterParams, exporterSchema, exportersListQuery } from '../../schemas/ledger-pipelines';

const tags = ['ledger'];
const base = '/api/ledger/v2/_/exporters';

export const createExporterRoute = defineRoute(
  {
    method: 'post',
    path: base,
    operationId: 'createExporter',
    tags,
    summary: 'Create an exporter: a driver (http or postgres) and its configuration',
    responses: { 201: { description: 'Created', schema: dataOf(exporterSchema) } },
  },
  authenticate('ledger:write'),
  validate({ body: exporterConfigurationSchema }),
  async function createExporterHandler(ctx) {
    ctx.status = 201;
    ctx.body = { data: await createExporter(ctx.deps.db, ctx.state.input.body) };
  },
);

export const listExportersRoute = defineRoute(
  {
    method: 'get',
    path: base,
    operationId: 'listExporters',
    summary: 'List exporters, oldest first',
    tags,
    responses: { 200: { description: 'Exporters', schema: cursorOf(exporterSchema) } },
  },
  authenticate('ledger:read'),
  validate({ query: exportersListQuery }),
  async function listExportersHandler(ctx) {
    const list = ctx.state.input.list;
    const page = await listExporters(ctx.deps.db, list);
    ctx.body = cursorEnvelope(list, page, (row: ExporterRow) => [row.created_at, row.id], presentExporter);
  },
);

export const getExporterRoute = defineRoute(
  {
    method: 'get',
    path: `${base}/{exporterID}`,
    operationId: 'getExporterState',
    summary: 'Read an exporter',
    tags,
    responses: { 200: { description: 'The exporter', schema: dataOf(exporterSchema) } },
  },
  authenticate('ledger:read'),
  validate({ params: exporterParams }),
  async function getExporterHandler(ctx) {
    ctx.body = { data: await getExporter(ctx.deps.db, ctx.state.input.params.exporterID) };
  },
);

export const updateExporterRoute = defineRoute(
  {
    method: 'put',
    path: `${base}/{exporterID}`,
    operationId: 'updateExporter',
    tags,
    summary: "Replace an exporter's driver and configuration; running pipelines use it from their next batch",
    responses: { 204: { description: 'Updated' } },
  },
  authenticate('ledger:write'),
  validate({ params: exporterParams, body: exporterConfigurationSchema }),
  async function updateExporterHandler(ctx) {
    await updateExporter(ctx.deps.db, ctx.state.input.params.exporterID, ctx.state.input.body);
    ctx.status = 204;
  },
);

export const deleteExporterRoute = defineRoute(
  {
    method: 'delete',
    path: `${base}/{exporterID}`,
    operationId: 'deleteExporter',
    summary: 'Delete an exporter no pipeline uses',
    tags,
    responses: { 204: { description: 'Deleted' } },
  },
  authenticate('ledger:write'),
  validate({ params: exporterParams }),
  async function deleteExporterHandler(ctx) {
    await deleteExporter(ctx.deps.db, ctx.state.input.params.exporterID);
    ctx.status = 204;
  },
);

export const exporterRoutes = [createExporterRoute, listExportersRoute, getExporterRoute, updateExporterRoute, deleteExporterRoute];

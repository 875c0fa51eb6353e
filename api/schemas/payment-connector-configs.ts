import { anyObjectSchema } from './common';

/**
 * A connector config update: an object whose members the area checks against the connector's own plugin's config
 * schema (plugin-registry.ts), which only it knows from the connector's id. The install routes' body schemas are the
 * plugins' own (connectorInstallRoutes in api/routes/payments/connectors.ts).
 */
export const anyConfigSchema = anyObjectSchema({
  required: ['name'],
  properties: { name: { type: 'string', minLength: 1, maxLength: 200 } },
  description: "The whole config, as at install: the members of the connector's plugin's config schema.",
});

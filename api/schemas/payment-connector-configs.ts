import { objectSchema, stringSchema } from './common';

/**
 * A connector config update: any members, checked by the area against the connector's own plugin's config schema
 * (plugin-registry.ts), which only it knows. The install routes' body schemas are the plugins' own (connectorInstallRoutes).
 */
export const anyConfigSchema = {
  ...objectSchema({ name: stringSchema({ minLength: 1, maxLength: 200 }) }, ['name']),
  additionalProperties: true,
} as unknown as ReturnType<typeof objectSchema<{ name: ReturnType<typeof stringSchema> }, 'name'>> & Record<string, unknown>;

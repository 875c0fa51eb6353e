import { ALL_SCOPES } from '../middleware/authenticate';
import type { JsonSchema } from '../routing';
import { objectSchema } from './common';

const stringList: JsonSchema = { type: 'array', items: { type: 'string', maxLength: 2048 }, maxItems: 100 };
const anyMetadata: JsonSchema = { type: 'object', description: 'Free-form JSON object.' };

export const clientSecretSchema: JsonSchema = objectSchema(
  { id: { type: 'string' }, name: { type: 'string' }, lastDigits: { type: 'string' }, metadata: anyMetadata },
  ['id', 'name', 'lastDigits', 'metadata'],
);

export const clientSchema: JsonSchema = objectSchema(
  {
    id: { type: 'string' },
    name: { type: 'string' },
    description: { type: 'string' },
    public: { type: 'boolean' },
    trusted: { type: 'boolean' },
    redirectUris: { type: 'array', items: { type: 'string' } },
    postLogoutRedirectUris: { type: 'array', items: { type: 'string' } },
    scopes: { type: 'array', items: { type: 'string' } },
    metadata: anyMetadata,
    secrets: { type: 'array', items: clientSecretSchema },
  },
  ['id', 'name', 'description', 'public', 'trusted', 'redirectUris', 'postLogoutRedirectUris', 'scopes', 'metadata', 'secrets'],
);

export const clientInputSchema: JsonSchema = objectSchema(
  {
    name: { type: 'string', minLength: 1, maxLength: 200 },
    description: { type: 'string', maxLength: 2000 },
    public: { type: 'boolean' },
    trusted: { type: 'boolean' },
    redirectUris: { ...stringList, items: { type: 'string', format: 'uri', maxLength: 2048 } },
    postLogoutRedirectUris: { ...stringList, items: { type: 'string', format: 'uri', maxLength: 2048 } },
    scopes: { type: 'array', items: { type: 'string', enum: ALL_SCOPES }, maxItems: 100 },
    metadata: anyMetadata,
  },
  ['name'],
);

export const secretInputSchema: JsonSchema = objectSchema({ name: { type: 'string', maxLength: 200 }, metadata: anyMetadata });

export const createdSecretSchema: JsonSchema = objectSchema(
  { ...(clientSecretSchema.properties as Record<string, JsonSchema>), clear: { type: 'string', description: 'The secret; shown only here.' } },
  ['id', 'name', 'lastDigits', 'metadata', 'clear'],
);

import { ALL_SCOPES } from '../middleware/authenticate';
import type { JsonSchema } from '../routing';
import { arraySchema, booleanSchema, extendObject, metadataSchema, objectSchema, stringSchema } from './common';

const uriList = () => arraySchema(stringSchema({ format: 'uri', maxLength: 2048 }), { maxItems: 100 });
// String values, as Formance's clients expect: the SDK refuses a client list holding any other value.
const anyMetadata = metadataSchema;

export const clientSecretSchema = objectSchema(
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

export const clientInputSchema = objectSchema(
  {
    name: stringSchema({ minLength: 1, maxLength: 200 }),
    description: stringSchema({ maxLength: 2000 }),
    public: booleanSchema(),
    trusted: booleanSchema(),
    redirectUris: uriList(),
    postLogoutRedirectUris: uriList(),
    scopes: arraySchema(stringSchema({ enum: ALL_SCOPES }), { maxItems: 100 }),
    metadata: anyMetadata,
  },
  ['name'],
);

export const secretInputSchema = objectSchema({ name: stringSchema({ maxLength: 200 }), metadata: anyMetadata });

export const createdSecretSchema: JsonSchema = extendObject(
  clientSecretSchema,
  { clear: { type: 'string', description: 'The secret; shown only here.' } },
  ['clear'],
);

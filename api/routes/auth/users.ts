import { notFound } from '../../../lib/errors';
import { authenticate } from '../../middleware/authenticate';
import { validate } from '../../middleware/validate';
import { defineRoute } from '../../routing';
import { arraySchema, dataOf, objectSchema, stringSchema } from '../../schemas/common';

const tags = ['auth'];
const userSchema = objectSchema({ id: stringSchema(), subject: stringSchema(), email: stringSchema() });
const userParams = objectSchema({ userId: stringSchema({ minLength: 1, maxLength: 200 }) }, ['userId']);

/**
 * Formance's users are people who signed in through its OIDC delegation. This platform's issuer has no users, only
 * OAuth clients (an external issuer keeps its users to itself), so the list is always empty and every user a 404
 * (docs/auth.md). Kept so Formance's clients work unchanged.
 */
export const listUsersRoute = defineRoute(
  {
    method: 'get',
    path: '/api/auth/users',
    operationId: 'listUsers',
    summary: 'Users: always empty (no users, only OAuth clients)',
    tags,
    responses: { 200: { description: 'Users', schema: dataOf(arraySchema(userSchema)) } },
  },
  authenticate('auth:read'),
  async function listUsersHandler(ctx) {
    ctx.body = { data: [] };
  },
);

export const readUserRoute = defineRoute(
  {
    method: 'get',
    path: '/api/auth/users/{userId}',
    operationId: 'readUser',
    summary: 'A user: always 404 (no users, only OAuth clients)',
    tags,
    responses: { 200: { description: 'User', schema: dataOf(userSchema) } },
  },
  authenticate('auth:read'),
  validate({ params: userParams }),
  async function readUserHandler(ctx) {
    throw notFound(`user "${ctx.state.input.params.userId}" not found: this platform has OAuth clients, no users`);
  },
);

export const userRoutes = [listUsersRoute, readUserRoute];

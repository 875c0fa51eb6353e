/**
 * The one error type of the platform. Services, repositories and activities throw it; the HTTP layer maps it to a
 * response (api/middleware/error-handler.ts) and activities map it to Temporal failures, retryable or not.
 */
export const ErrorCodes = {
  VALIDATION: 400,
  INSUFFICIENT_FUND: 400,
  COMPILATION_FAILED: 400,
  NO_POSTINGS: 400,
  METADATA_OVERRIDE: 400,
  ALREADY_REVERT: 400,
  LEDGER_ALREADY_EXISTS: 400,
  HOLD_CLOSED: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  LEDGER_NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  CONFLICT: 409,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  TOO_MANY_REQUESTS: 429,
  INTERNAL: 500,
  SERVICE_UNAVAILABLE: 503,
} as const;

export type ErrorCode = keyof typeof ErrorCodes;

export class ApiError extends Error {
  readonly status: number;
  /** Koa's contract: only errors below 500 show their message to the client. */
  readonly expose: boolean;
  readonly headers: Record<string, string>;
  readonly details: unknown;

  constructor(
    readonly code: ErrorCode | string,
    message: string,
    options: { status?: number; details?: unknown; cause?: unknown; headers?: Record<string, string> } = {},
  ) {
    super(message, { cause: options.cause });
    this.name = this.constructor.name;
    this.status = options.status ?? (ErrorCodes as Record<string, number>)[code] ?? 500;
    this.expose = this.status < 500;
    this.details = options.details;
    this.headers = options.headers ?? {};
  }
}

export const validationError = (message: string, details?: unknown) => new ApiError('VALIDATION', message, { details });
export const notFound = (message: string) => new ApiError('NOT_FOUND', message);
export const conflict = (message: string) => new ApiError('CONFLICT', message);

export function isApiError(error: unknown): error is ApiError {
  return error instanceof ApiError;
}

/** An API failure as data: the spec's envelope fields plus the HTTP status. */
export type ErrorType =
  | 'invalid_request_error'
  | 'authentication_error'
  | 'permission_error'
  | 'rate_limit_error'
  | 'api_error';

export class ApiError extends Error {
  constructor(
    readonly statusCode: number,
    readonly type: ErrorType,
    message: string,
    readonly param?: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

export const badRequest = (message: string, param?: string) => new ApiError(400, 'invalid_request_error', message, param);
export const notFound = (what: string, param?: string) =>
  new ApiError(404, 'invalid_request_error', `No such ${what}`, param);
export const forbidden = (message: string) => new ApiError(403, 'permission_error', message);
export const unauthenticated = (message: string) => new ApiError(401, 'authentication_error', message);

export function envelope(type: ErrorType, message: string, param?: string) {
  return { error: param === undefined ? { type, message } : { type, message, param } };
}

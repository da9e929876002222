import type { ApiErrorType } from '@setup-pack/core';

/** The envelope's error types, as the workspace-API contract states them (core's API_ERROR_TYPES). */
export type ErrorType = ApiErrorType;

/**
 * What an error says as data beside its words, each field in the envelope next to `param` and
 * named in the Error schema (http/schemas.ts): a client reads these, never the message.
 */
export interface ErrorFields {
  /** A refusal because another holder has the pack's install lock: who, and until when. */
  lock?: InstallLock;
}

/** A pack's install lock as the API shows it (a ledger record's `lock`, an error's `lock`). */
export interface InstallLock {
  holder: string;
  expires_at: string;
}

export class ApiError extends Error {
  constructor(
    readonly statusCode: number,
    readonly type: ErrorType,
    message: string,
    readonly param?: string,
    readonly headers: Record<string, string> = {},
    readonly fields: ErrorFields = {},
  ) {
    super(message);
  }
}

export const badRequest = (message: string, param?: string) => new ApiError(400, 'invalid_request_error', message, param);
/**
 * The 400 of a field that breaks a rule, in the one form every such refusal takes, whether the
 * request's schema or the store found it: `Invalid sale_price: must be less than …`. `problem`
 * starts with what the value must be or is ("must …", "is …").
 */
export const invalidField = (param: string, problem: string) => badRequest(`Invalid ${param}: ${problem}`, param);
export const notFound = (what: string, param?: string) => new ApiError(404, 'invalid_request_error', `No such ${what}`, param);
export const forbidden = (message: string) => new ApiError(403, 'permission_error', message);
export const unauthenticated = (message: string) => new ApiError(401, 'authentication_error', message);

export function envelope(type: ErrorType, message: string, param?: string, fields: ErrorFields = {}) {
  return { error: { type, message, ...(param === undefined ? {} : { param }), ...fields } };
}

/**
 * The error factories of the service. Every error that reaches a client carries an HTTP status and a
 * stable machine-readable code; anything else becomes `internal_error` with no details.
 */
export interface ErrorDetail {
  field: string;
  message: string;
}

export class AppError extends Error {
  readonly status: number;
  readonly code: string;
  readonly details?: ErrorDetail[];
  readonly headers?: Record<string, string>;

  constructor(status: number, code: string, message: string, options: { details?: ErrorDetail[]; headers?: Record<string, string> } = {}) {
    super(message);
    this.name = 'AppError';
    this.status = status;
    this.code = code;
    if (options.details) this.details = options.details;
    if (options.headers) this.headers = options.headers;
  }
}

export const invalidRequest = (message: string, details?: ErrorDetail[]) =>
  new AppError(400, 'invalid_request', message, details ? { details } : {});
export const validationFailed = (details: ErrorDetail[], message = 'The request is not valid.') =>
  new AppError(422, 'validation_failed', message, { details });
export const notFound = (message = 'The requested resource does not exist.') => new AppError(404, 'not_found', message);
export const conflict = (message: string) => new AppError(409, 'conflict', message);
export const forbidden = (message = 'You are not allowed to do this.') => new AppError(403, 'forbidden', message);

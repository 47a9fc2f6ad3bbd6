import { ERROR_STATUS, ErrorCode } from './error-code.js';

export interface ErrorDetail {
  field: string;
  message: string;
}

/** The one exception type features throw; the global filter renders it as api-rules.md § Errors's body. */
export class AppError extends Error {
  readonly status: number;

  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: ErrorDetail[],
    readonly headers?: Record<string, string>,
  ) {
    super(message);
    this.name = 'AppError';
    this.status = ERROR_STATUS[code];
  }

  static notFound(what = 'Resource'): AppError {
    return new AppError(ErrorCode.NOT_FOUND, `${what} not found`);
  }

  static validation(field: string, message: string): AppError {
    return new AppError(ErrorCode.VALIDATION_ERROR, 'Validation failed', [{ field, message }]);
  }

  static unauthorized(message = 'Missing or invalid credentials'): AppError {
    return new AppError(ErrorCode.UNAUTHORIZED, message);
  }

  static forbidden(message = 'Not allowed'): AppError {
    return new AppError(ErrorCode.FORBIDDEN, message);
  }
}

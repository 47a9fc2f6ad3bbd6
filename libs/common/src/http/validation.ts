import { ValidationError, ValidationPipe } from '@nestjs/common';
import { AppError, ErrorDetail } from '../errors/app-error.js';
import { ErrorCode } from '../errors/error-code.js';

function flatten(errors: ValidationError[], parent = ''): ErrorDetail[] {
  return errors.flatMap((error) => {
    const field = parent ? (/^\d+$/.test(error.property) ? `${parent}[${error.property}]` : `${parent}.${error.property}`) : error.property;
    const own = Object.values(error.constraints ?? {}).map((message) => ({ field, message }));
    return [...own, ...flatten(error.children ?? [], field)];
  });
}

/** One detail per field: the first constraint that failed for it. */
export function validationDetails(errors: ValidationError[]): ErrorDetail[] {
  const byField = new Map<string, ErrorDetail>();
  for (const detail of flatten(errors)) if (!byField.has(detail.field)) byField.set(detail.field, detail);
  return [...byField.values()];
}

export function createValidationPipe(): ValidationPipe {
  return new ValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    transform: true,
    stopAtFirstError: false,
    validationError: { target: false, value: false },
    exceptionFactory: (errors: ValidationError[]) =>
      new AppError(ErrorCode.VALIDATION_ERROR, 'Validation failed', validationDetails(errors)),
  });
}

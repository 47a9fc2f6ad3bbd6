import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional, ApiResponse } from '@nestjs/swagger';
import { ErrorCode } from '../errors/error-code.js';

export class ErrorDetailDto {
  @ApiProperty() field!: string;
  @ApiProperty() message!: string;
}

/** api-rules.md § Errors's error body, for the OpenAPI document. */
export class ErrorResponseDto {
  @ApiProperty({ enum: Object.values(ErrorCode) }) code!: string;
  @ApiProperty() message!: string;
  @ApiPropertyOptional({ type: ErrorDetailDto, isArray: true }) details?: ErrorDetailDto[];
  @ApiProperty({ example: 'req_8dJ2kQ0xWm3nB7vR1sTz' }) requestId!: string;
}

const DESCRIPTIONS: Record<number, string> = {
  400: 'VALIDATION_ERROR: a field, type, range, format or unknown field is wrong (`details` lists each field)',
  401: 'UNAUTHORIZED, TOKEN_EXPIRED, KEY_REVOKED or KEY_EXPIRED',
  403: 'FORBIDDEN (role, or API key on a JWT-only endpoint) or INSUFFICIENT_SCOPE (message names the scope)',
  404: 'NOT_FOUND: no such resource in the caller’s organization',
  409: 'Conflict: see the operation’s description for the codes',
  410: 'Gone',
  422: 'IDEMPOTENCY_KEY_REUSED',
  429: 'RATE_LIMITED, with Retry-After',
};

/** Documents the error responses of an operation; 429 and 500 are added everywhere. */
export function ApiErrors(...statuses: number[]): MethodDecorator & ClassDecorator {
  const all = [...new Set([...statuses, 429, 500])];
  return applyDecorators(
    ...all.map((status) =>
      ApiResponse({ status, type: ErrorResponseDto, description: DESCRIPTIONS[status] ?? 'INTERNAL_ERROR: nothing internal is revealed' }),
    ),
  );
}

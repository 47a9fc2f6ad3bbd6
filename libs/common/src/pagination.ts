import { ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, Max, Min } from 'class-validator';
import { Optional } from './validation/optional.js';

export const DEFAULT_PAGE_SIZE = 20;
export const MAX_PAGE_SIZE = 100;
/** Far beyond any real list; keeps the offset inside PostgreSQL's bigint. */
export const MAX_PAGE = 1_000_000;

/** `page` ≥ 1 and `limit` 1..100 (default 20); anything else is a 400 through the global ValidationPipe. */
export class PaginationQueryDto {
  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: MAX_PAGE, default: 1 })
  @Optional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(MAX_PAGE)
  page: number = 1;

  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: MAX_PAGE_SIZE, default: DEFAULT_PAGE_SIZE })
  @Optional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(MAX_PAGE_SIZE)
  limit: number = DEFAULT_PAGE_SIZE;
}

export interface PageRequest {
  page: number;
  limit: number;
}

export function pageOffset({ page, limit }: PageRequest): number {
  return (page - 1) * limit;
}

export function pageMeta({ page, limit }: PageRequest, totalCount: number): { totalCount: number; hasMore: boolean } {
  return { totalCount, hasMore: page * limit < totalCount };
}

import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';

/**
 * The rest of the path a wildcard route (`by-external-id/*`) matched, under the name the document gives it: the
 * global pipe names this name, not `*`, when it refuses the value (a NUL character: 400 naming `externalId`).
 */
export const WildcardParam = createParamDecorator((_name: string, context: ExecutionContext): string | undefined => {
  const params = context.switchToHttp().getRequest<FastifyRequest>().params as Record<string, string | undefined>;
  return params['*'];
});

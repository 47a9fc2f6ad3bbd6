import type { FastifyInstance } from 'fastify';
import { AppError } from '../errors/app-error.js';
import { findJsonShapeProblem } from './validation.js';

/**
 * The JSON body parser: the shape limits (findJsonShapeProblem) on the text, then Fastify's own parser, before any
 * hook, guard or pipe reads the body. `__proto__` and `constructor` are parsed as the keys they are (plain JSON.parse, own data
 * properties) rather than refused as a whole: the validation pipe names them as unknown fields like any other, and
 * free-form objects keep them as keys (api-rules.md § Basics: every name is a field).
 */
export function parseJsonBodies(fastify: FastifyInstance): void {
  const parse = fastify.getDefaultJsonParser('ignore', 'ignore');
  fastify.removeContentTypeParser('application/json');
  // SCIM's own JSON (contract § 21) is JSON too.
  for (const type of ['application/json', 'application/scim+json'])
    fastify.addContentTypeParser(type, { parseAs: 'string' }, (request, body, done) => {
      const problem = findJsonShapeProblem(body as string);
      if (problem) return done(AppError.validation(problem.field, problem.message), undefined);
      void parse(request, body as string, done);
    });
}

import type { FastifyReply } from 'fastify';

/** Answers smaller than this are sent as they are (@fastify/compress's threshold, and the cached answers'). */
export const COMPRESS_THRESHOLD_BYTES = 1024;

/** Adds `field` to the reply's `Vary`, keeping what other layers (CORS's `Origin`) put there. */
export function appendVary(reply: FastifyReply, field: string): void {
  const current = reply.getHeader('vary');
  const fields = typeof current === 'string' && current !== '' ? current.split(',').map((f) => f.trim()) : [];
  if (!fields.some((f) => f.toLowerCase() === field.toLowerCase() || f === '*')) fields.push(field);
  void reply.header('Vary', fields.join(', '));
}

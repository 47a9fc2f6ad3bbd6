import { Negotiator } from '@fastify/accept-negotiator';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { appendVary, COMPRESS_THRESHOLD_BYTES } from '@app/common';
import { type ContentEncoding, encodedBody } from './availability-cache.service.js';
import type { SlotsAnswer } from './availability.service.js';

const encodings = new Negotiator<ContentEncoding>({ supportedValues: ['br', 'gzip'] });

/**
 * Sends an availability answer (GET /availability, GET /public/availability): `Cache-Status` says whether the cache
 * gave it, and a client that accepts br or gzip gets the bytes compressed once with the cached answer instead of
 * on every request (a 31-day answer is some 60 KB of JSON).
 */
export function sendSlots(request: FastifyRequest, reply: FastifyReply, answer: SlotsAnswer): Buffer {
  void reply
    .type('application/json; charset=utf-8')
    .header('Cache-Status', answer.cache === 'hit' ? 'availability; hit' : 'availability; fwd=miss');
  const accepted = request.headers['accept-encoding'];
  const encoding = typeof accepted === 'string' && answer.body.length >= COMPRESS_THRESHOLD_BYTES ? encodings.negotiate(accepted) : null;
  if (encoding === null) return answer.body;
  appendVary(reply, 'Accept-Encoding');
  void reply.header('Content-Encoding', encoding);
  return encodedBody(answer, encoding);
}

import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { ThrottlerStorage } from '@nestjs/throttler';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppConfig, BROWSER_CORS, clientAddress } from '@app/common';
import { OAuthError, type Parameters, OAuthProtocolService } from './oauth-protocol.service.js';

const FORM = 'application/x-www-form-urlencoded';
const MAX_FORM_BYTES = 16 * 1024;
const WINDOW_MS = 60_000;

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** The page a browser gets when the request cannot go back to the app (unknown client or redirect URI). */
function refusalPage(message: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Authorization request refused</title></head>
<body><main><h1>This authorization request cannot continue</h1><p>${escapeHtml(message)}</p>
<p>Nothing was sent back to the app. Tell its developer: the request must name a registered client and one of its redirect URIs exactly.</p></main></body></html>`;
}

/** The form's parameters; a repeated one is a malformed request (RFC 6749 § 3.2). */
function formParameters(request: FastifyRequest): Parameters {
  const type = String(request.headers['content-type'] ?? '')
    .split(';')[0]
    .trim()
    .toLowerCase();
  if (type !== FORM) throw new OAuthError('invalid_request', `Send the parameters as ${FORM}`);
  const parameters: Parameters = new Map();
  for (const [name, value] of new URLSearchParams(typeof request.body === 'string' ? request.body : '')) {
    if (parameters.has(name)) throw new OAuthError('invalid_request', `The parameter ${name} is repeated`);
    if (value !== '') parameters.set(name, value);
  }
  return parameters;
}

function answerError(reply: FastifyReply, error: unknown, request: FastifyRequest): FastifyReply {
  void reply.header('Cache-Control', 'no-store').header('Pragma', 'no-cache');
  if (error instanceof OAuthError) {
    if (error.status === 401) void reply.header('WWW-Authenticate', 'Basic realm="oauth"');
    return reply.code(error.status).send({ error: error.error, error_description: error.description });
  }
  request.log.error({ err: error }, 'OAuth endpoint failed');
  return reply.code(500).send({ error: 'server_error', error_description: 'An unexpected error occurred' });
}

function authorizationOf(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  return typeof header === 'string' && header !== '' ? header : undefined;
}

/**
 * The authorization server's endpoints outside /v1 (contract § 20): RFC 8414 metadata, the authorization request, the
 * token and revocation endpoints. Plain Fastify routes in a plugin of their own, which alone parses form bodies (the
 * API takes JSON only), answering RFC 6749's shapes rather than section 2's.
 */
export async function serveOAuthEndpoints(app: NestFastifyApplication): Promise<void> {
  const protocol = app.get(OAuthProtocolService);
  const config = app.get(AppConfig);
  const counters = app.get<ThrottlerStorage>(ThrottlerStorage, { strict: false });
  const fastify = app.getHttpAdapter().getInstance() as FastifyInstance;
  await fastify.register(async (scope) => {
    // Public endpoints: counted per client address as the API's public routes are (RATE_LIMIT_PUBLIC_PER_MINUTE), in
    // the same counters (Redis with REDIS_URL); over the limit, 429 before any work.
    scope.addHook('onRequest', async (request, reply) => {
      const limit = config.rateLimitPublicPerMinute;
      const { totalHits, timeToExpire } = await counters.increment(`oauth:ip:${clientAddress(request)}`, WINDOW_MS, limit, 0, 'default');
      void reply
        .header('X-RateLimit-Limit', String(limit))
        .header('X-RateLimit-Remaining', String(Math.max(0, limit - totalHits)))
        .header('X-RateLimit-Reset', String(Math.ceil(Date.now() / 1000) + timeToExpire));
      if (totalHits > limit) {
        return reply
          .code(429)
          .header('Retry-After', String(timeToExpire))
          .header('Cache-Control', 'no-store')
          .send({ error: 'rate_limited', error_description: `Rate limit of ${limit} requests per minute exceeded` });
      }
    });
    scope.addContentTypeParser(FORM, { parseAs: 'string', bodyLimit: MAX_FORM_BYTES }, (_request, body, done) => done(null, body));

    scope.get('/.well-known/oauth-authorization-server', async (_request, reply) =>
      reply.header('Cache-Control', 'public, max-age=300').send(protocol.metadata()),
    );

    scope.get('/oauth/authorize', async (request, reply) => {
      void reply.header('Cache-Control', 'no-store').header('Referrer-Policy', 'no-referrer');
      try {
        const outcome = await protocol.authorize((request.query ?? {}) as Record<string, unknown>);
        if (outcome.kind === 'redirect') return reply.redirect(outcome.location, 302);
        return reply
          .code(400)
          .header('Content-Security-Policy', "default-src 'none'")
          .type('text/html; charset=utf-8')
          .send(refusalPage(outcome.message));
      } catch (error) {
        request.log.error({ err: error }, 'OAuth authorization request failed');
        return reply.code(500).type('text/html; charset=utf-8').send(refusalPage('An unexpected error occurred.'));
      }
    });

    scope.post('/oauth/token', { config: { cors: BROWSER_CORS } }, async (request, reply) => {
      try {
        const answer = await protocol.token(formParameters(request), authorizationOf(request));
        return reply.header('Cache-Control', 'no-store').header('Pragma', 'no-cache').send(answer);
      } catch (error) {
        return answerError(reply, error, request);
      }
    });

    scope.post('/oauth/revoke', { config: { cors: BROWSER_CORS } }, async (request, reply) => {
      try {
        await protocol.revoke(formParameters(request), authorizationOf(request));
        return reply.header('Cache-Control', 'no-store').code(200).send();
      } catch (error) {
        return answerError(reply, error, request);
      }
    });
  });
}

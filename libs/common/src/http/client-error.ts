import type { ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { ErrorCode } from '../errors/error-code.js';
import type { ErrorBody } from './error-body.js';
import { newRequestId } from './request-id.js';

/**
 * Fastify's `clientErrorHandler`: what Node's HTTP parser refuses (a control character in a header, a
 * malformed request line, headers over the limit) never reaches a route, yet it gets the API's error body
 * and an `X-Request-Id` like every other answer. The connection is closed: the parser lost its place.
 * A request whose headers and body have not all arrived REQUEST_TIMEOUT_MS after its first byte (Node's
 * `requestTimeout`; headers alone: `headersTimeout`) gets 408 `REQUEST_TIMEOUT`, or only the close when its answer has
 * already begun (a second answer on the socket would corrupt the first).
 */
export function answerClientError(error: Error & { code?: string }, socket: Socket): void {
  // Node keeps the answer in progress on its socket; written raw after its head, a second answer would corrupt it.
  const answering = (socket as Socket & { _httpMessage?: ServerResponse | null })._httpMessage;
  if (!socket.writable || answering?.headersSent === true) {
    socket.destroy();
    return;
  }
  const timedOut = error.code === 'ERR_HTTP_REQUEST_TIMEOUT';
  const status = timedOut ? 408 : 400;
  const requestId = newRequestId();
  const body: ErrorBody = {
    code: timedOut ? ErrorCode.REQUEST_TIMEOUT : ErrorCode.VALIDATION_ERROR,
    message: timedOut ? 'The request took too long to arrive' : 'The request is not valid HTTP',
    requestId,
  };
  const json = JSON.stringify(body);
  // Destroyed once written, as Node's own handler does: an HTTP server's sockets allow half-open connections, so a
  // client that never closes its side would otherwise keep the socket, and its place under MAX_CONNECTIONS_PER_CLIENT.
  socket.once('finish', () => socket.destroy());
  socket.end(
    `HTTP/1.1 ${status} ${timedOut ? 'Request Timeout' : 'Bad Request'}\r\n` +
      'Content-Type: application/json; charset=utf-8\r\n' +
      `Content-Length: ${Buffer.byteLength(json)}\r\n` +
      `X-Request-Id: ${requestId}\r\n` +
      'Connection: close\r\n\r\n' +
      json,
  );
}

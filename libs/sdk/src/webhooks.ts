import { Webhook, WebhookVerificationError } from 'standardwebhooks';

export { WebhookVerificationError };

/** A delivery's body (docs/api-rules.md § Webhooks): `data.booking` is the booking as `GET /v1/bookings/{id}` shows it. */
export interface WebhookEvent<T = Record<string, unknown>> {
  id: string;
  type: string;
  createdAt: string;
  livemode: boolean;
  data: T;
}

export interface VerifyWebhookOptions {
  /** The endpoint's signing secret (`whsec_…`), shown when it was created or rotated. */
  secret: string;
  /** The request body exactly as received (not re-serialized JSON). */
  payload: string | Uint8Array;
  /** The request's headers: `webhook-id`, `webhook-timestamp`, `webhook-signature` (any case). */
  headers: Headers | Record<string, string | string[] | undefined>;
}

function headerRecord(headers: VerifyWebhookOptions['headers']): Record<string, string> {
  const record: Record<string, string> = {};
  if (typeof (headers as Headers).forEach === 'function' && typeof (headers as Headers).get === 'function') {
    (headers as Headers).forEach((value, name) => (record[name.toLowerCase()] = value));
    return record;
  }
  for (const [name, value] of Object.entries(headers as Record<string, string | string[] | undefined>)) {
    if (value !== undefined) record[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return record;
}

/**
 * The event of a signed delivery (Standard Webhooks: HMAC-SHA256 over id, timestamp and body; a timestamp more than
 * five minutes off is refused), or a WebhookVerificationError thrown: answer 400 and the API retries.
 */
export function verifyWebhook<T = Record<string, unknown>>(options: VerifyWebhookOptions): WebhookEvent<T> {
  const payload = typeof options.payload === 'string' ? options.payload : new TextDecoder().decode(options.payload);
  return new Webhook(options.secret).verify(payload, headerRecord(options.headers)) as WebhookEvent<T>;
}

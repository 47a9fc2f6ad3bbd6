const MAX_REASON_LENGTH = 300;

export interface SendFailure {
  /** Short and free of message data: safe for logs (`ECONNECTION`, `EENVELOPE 550`, `AbortError`). */
  code: string;
  /** For the `last_error` column: the code plus the first line of the error, with credentials removed. */
  reason: string;
}

function field(error: unknown, name: string): unknown {
  return typeof error === 'object' && error !== null ? (error as Record<string, unknown>)[name] : undefined;
}

/** Why a send (a mail, a webhook, a calendar request) failed: a short code for logs, and a reason with `secrets` cut out. */
export function describeSendError(error: unknown, secrets: readonly string[] = []): SendFailure {
  const rawCode = field(error, 'code');
  const responseCode = field(error, 'responseCode');
  const name = error instanceof Error ? error.name : 'Error';
  let code = typeof rawCode === 'string' && /^[A-Za-z_]{1,40}$/.test(rawCode) ? rawCode : name;
  if (typeof responseCode === 'number') code += ` ${responseCode}`;

  const message = error instanceof Error ? error.message : String(error);
  let line = message.split(/\r?\n/, 1)[0] ?? '';
  for (const secret of secrets) {
    if (secret) line = line.split(secret).join('[redacted]');
  }
  line = line
    .replace(/\/\/[^/\s@]*@/g, '//[redacted]@')
    .replace(/\s+/g, ' ')
    .trim();
  return { code, reason: `${code}: ${line}`.slice(0, MAX_REASON_LENGTH) };
}

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

/** Credentials an SMTP URL carries, so they can be cut out of error text. */
export function smtpUrlSecrets(smtpUrl: string | undefined): string[] {
  if (!smtpUrl) return [];
  const secrets = [smtpUrl];
  try {
    const url = new URL(smtpUrl);
    for (const part of [url.username, url.password]) {
      if (part) secrets.push(part, decodeURIComponent(part));
    }
  } catch {
    // config validation already refused malformed URLs
  }
  return secrets.sort((a, b) => b.length - a.length);
}

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

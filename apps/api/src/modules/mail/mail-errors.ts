export { describeSendError, type SendFailure } from '@app/common';
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

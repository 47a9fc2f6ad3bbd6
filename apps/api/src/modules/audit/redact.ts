/** What stands in for a secret in the audit log. */
export const REDACTED = '[redacted]';

/**
 * Field names whose values are secrets (contract § 18): keys, tokens, passwords, webhook secrets, calendar URLs and
 * credentials. Matched on the name, at any depth, so a new secret field is hidden by its name before anyone thinks of it.
 */
const SECRET_NAME = /secret|token|password|passphrase|credential|apikey|api_key|^key$|hash|url|authorization|cookie/i;

export function isSecretName(name: string): boolean {
  return SECRET_NAME.test(name);
}

/** A copy of `value` with every secret-named field's value replaced by REDACTED. */
export function redact(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(redact);
  if (value === null || typeof value !== 'object' || value instanceof Date) return value;
  const out: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
  for (const [name, field] of Object.entries(value)) out[name] = isSecretName(name) ? REDACTED : redact(field);
  return out;
}

export type AuditChanges = Record<string, { from: unknown; to: unknown }>;

/** An update's changes as stored: a secret field keeps that it changed, not its values. */
export function redactChanges(changes: AuditChanges): AuditChanges {
  const out: AuditChanges = Object.create(null) as AuditChanges;
  for (const [field, change] of Object.entries(changes)) {
    out[field] = isSecretName(field) ? { from: REDACTED, to: REDACTED } : { from: redact(change.from), to: redact(change.to) };
  }
  return out;
}

/** The `changes` of an update: each field of `after` whose value differs from `before`'s, secrets redacted. */
export function changesBetween(before: object, after: object, fields?: readonly string[]): AuditChanges | undefined {
  const was = before as Record<string, unknown>;
  const now = after as Record<string, unknown>;
  const changes: AuditChanges = Object.create(null) as AuditChanges;
  let any = false;
  for (const field of fields ?? Object.keys(now)) {
    if (!(field in now) || now[field] === undefined || field === 'updatedAt') continue;
    const from = normal(was[field]);
    const to = normal(now[field]);
    if (JSON.stringify(from) === JSON.stringify(to)) continue;
    changes[field] = isSecretName(field) ? { from: REDACTED, to: REDACTED } : { from: redact(from), to: redact(to) };
    any = true;
  }
  return any ? changes : undefined;
}

function normal(value: unknown): unknown {
  if (value === undefined) return null;
  if (value instanceof Date) return value.toISOString();
  return value;
}

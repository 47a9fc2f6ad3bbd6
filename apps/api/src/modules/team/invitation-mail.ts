import type { Role } from '@app/common';
import type { OutgoingMail } from '../mail/index.js';
import { readerLocale, translator } from '../../i18n/index.js';

export interface InvitationMailInput {
  to: string;
  organizationName: string;
  /** The organization's `defaultLocale`: the invitee has no locale of its own yet (contract § 23). */
  locale: string;
  role: Role;
  acceptUrl: string;
  expiresAt: Date;
}

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => HTML_ESCAPES[c]);
}

/** Stands for a value that the HTML part marks up after escaping the message around it. */
const SLOT = '\u0000';

/**
 * The invitation, in the organization's default language, its expiry as a full date in UTC (the invitee's zone is not
 * known yet). The organization name is user input: it must not break the subject line or the markup.
 */
export function invitationMail(input: InvitationMailInput): OutgoingMail {
  const tr = translator(readerLocale(null, input.locale));
  const name = input.organizationName.replace(/\s+/g, ' ').trim();
  const expires = tr.when('UTC', input.expiresAt);
  const text = [
    tr.t('invitation.intro', { organization: name, role: input.role }),
    '',
    tr.t('invitation.accept'),
    input.acceptUrl,
    '',
    tr.t('invitation.expires', { when: expires }),
    tr.t('invitation.ignore'),
    '',
  ].join('\n');
  const intro = escapeHtml(tr.t('invitation.intro', { organization: SLOT, role: input.role })).replace(
    SLOT,
    `<strong>${escapeHtml(name)}</strong>`,
  );
  const html = [
    `<p>${intro}</p>`,
    `<p><a href="${escapeHtml(input.acceptUrl)}">${escapeHtml(tr.t('invitation.link'))}</a></p>`,
    `<p>${escapeHtml(tr.t('invitation.paste', { url: input.acceptUrl }))}</p>`,
    `<p>${escapeHtml(tr.t('invitation.expires', { when: expires }))} ${escapeHtml(tr.t('invitation.ignore'))}</p>`,
  ].join('\n');
  return { to: [input.to], subject: tr.t('invitation.subject', { organization: name }), text, html };
}

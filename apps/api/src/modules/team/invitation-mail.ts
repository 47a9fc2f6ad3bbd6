import type { Role } from '@app/common';
import type { OutgoingMail } from '../mail/index.js';

export interface InvitationMailInput {
  to: string;
  organizationName: string;
  role: Role;
  acceptUrl: string;
  expiresAt: Date;
}

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => HTML_ESCAPES[c]);
}

/** The organization name is user input: it must not break the subject line or the markup. */
export function invitationMail(input: InvitationMailInput): OutgoingMail {
  const name = input.organizationName.replace(/\s+/g, ' ').trim();
  const article = input.role === 'owner' || input.role === 'admin' ? 'an' : 'a';
  const expires = input.expiresAt.toISOString();
  const text = [
    `You have been invited to join ${name} as ${article} ${input.role}.`,
    '',
    'Accept the invitation and choose your password here:',
    input.acceptUrl,
    '',
    `The link works once and expires at ${expires}.`,
    'If you did not expect this invitation, you can ignore this email.',
    '',
  ].join('\n');
  const html = [
    `<p>You have been invited to join <strong>${escapeHtml(name)}</strong> as ${article} ${input.role}.</p>`,
    `<p><a href="${escapeHtml(input.acceptUrl)}">Accept the invitation</a></p>`,
    `<p>Or paste this link into your browser: ${escapeHtml(input.acceptUrl)}</p>`,
    `<p>The link works once and expires at ${expires}. If you did not expect this invitation, you can ignore this email.</p>`,
  ].join('\n');
  return { to: [input.to], subject: `You're invited to join ${name}`, text, html };
}

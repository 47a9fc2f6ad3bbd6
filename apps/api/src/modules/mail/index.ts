export { MailModule } from './mail.module.js';
export { MailOutbox } from './mail-outbox.service.js';
export type { IcalMethod, MailIcal, OutgoingMail } from './mail.types.js';
// Small pieces the webhook worker shares with the mail worker.
export { OutboxListener } from './outbox-listener.js';
export { describeSendError } from './mail-errors.js';

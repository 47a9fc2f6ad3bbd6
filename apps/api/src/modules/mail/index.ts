export { MailModule } from './mail.module.js';
export { MailOutbox } from './mail-outbox.service.js';
export type { IcalMethod, MailIcal, OutgoingMail } from './mail.types.js';
// The webhook worker describes network errors the same way.
export { describeSendError } from './mail-errors.js';

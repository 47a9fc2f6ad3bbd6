export { MailModule } from './mail.module.js';
export { MailOutbox } from './mail-outbox.service.js';
export type { IcalMethod, MailIcal, OutgoingMail } from './mail.types.js';

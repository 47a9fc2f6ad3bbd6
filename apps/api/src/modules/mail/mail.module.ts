import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AppConfig } from '@app/common';
import { JobsModule } from '../../jobs/index.js';
import { MailMessage } from './entities/mail-message.entity.js';
import { MailOutbox } from './mail-outbox.service.js';
import { MailRepository } from './mail.repository.js';
import { createMailTransport, MailTransport } from './mail.transport.js';
import { MailWorker } from './mail.worker.js';

/** Features import this module for `MailOutbox`; the worker runs once per process however many import it. */
@Module({
  imports: [TypeOrmModule.forFeature([MailMessage]), JobsModule],
  providers: [MailRepository, MailOutbox, MailWorker, { provide: MailTransport, useFactory: createMailTransport, inject: [AppConfig] }],
  exports: [MailOutbox],
})
export class MailModule {}

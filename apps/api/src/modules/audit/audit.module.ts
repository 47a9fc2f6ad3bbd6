import { Global, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AUDIT_INTERCEPTOR } from '@app/common';
import { JobsModule } from '../../jobs/index.js';
import { AuditController } from './audit.controller.js';
import { AuditInterceptor } from './audit.interceptor.js';
import { AuditRepository } from './audit.repository.js';
import { AuditService } from './audit.service.js';
import { AuditTrail } from './audit-trail.service.js';
import { AuditEntry } from './entities/audit-entry.entity.js';

/**
 * The audit log (contract § 18): `audit_entries`, written by AuditTrail in each write request's transaction and read
 * by `GET /audit-log`. Global: any service may add to its request's entry (AuditTrail.describe); it imports no
 * feature module.
 */
@Global()
@Module({
  imports: [TypeOrmModule.forFeature([AuditEntry]), JobsModule],
  controllers: [AuditController],
  // The interceptor under AUDIT_INTERCEPTOR: `@Audited` routes reach it, other routes have no interceptor at all.
  providers: [AuditRepository, AuditTrail, AuditService, AuditInterceptor, { provide: AUDIT_INTERCEPTOR, useExisting: AuditInterceptor }],
  exports: [AuditTrail, AUDIT_INTERCEPTOR],
})
export class AuditModule {}

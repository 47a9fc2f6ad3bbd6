import { Module } from '@nestjs/common';
import { PeriodicJobs } from './periodic-jobs.service.js';

/** Imported by every module that owns housekeeping: one PeriodicJobs for the process. */
@Module({ providers: [PeriodicJobs], exports: [PeriodicJobs] })
export class JobsModule {}

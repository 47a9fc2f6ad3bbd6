import { Module } from '@nestjs/common';
import { KeyRotation } from './key-rotation.js';
import { PeriodicJobs } from './periodic-jobs.service.js';

/** Imported by every module that owns housekeeping: one PeriodicJobs (and one KeyRotation) for the process. */
@Module({ providers: [PeriodicJobs, KeyRotation], exports: [PeriodicJobs, KeyRotation] })
export class JobsModule {}

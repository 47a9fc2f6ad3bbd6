import { Global, Module } from '@nestjs/common';
import { GlobalLookups } from './global-lookups.read-model.js';

/** The lookups not scoped by organization (credentials, global uniqueness), injectable everywhere. */
@Global()
@Module({ providers: [GlobalLookups], exports: [GlobalLookups] })
export class GlobalLookupsModule {}

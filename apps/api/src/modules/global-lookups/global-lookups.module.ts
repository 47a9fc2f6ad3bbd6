import { Global, Module } from '@nestjs/common';
import { GlobalLookups } from './global-lookups.read-model.js';
import { KeyCompanions } from './key-companions.js';

/** The lookups not scoped by organization (credentials, global uniqueness), injectable everywhere. */
@Global()
@Module({ providers: [GlobalLookups, KeyCompanions], exports: [GlobalLookups, KeyCompanions] })
export class GlobalLookupsModule {}

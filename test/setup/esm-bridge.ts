/*
 * Node 20 lets a CommonJS package require() an ESM-only one; Jest's loader does not before Node 24.9.
 * @nestjs/throttler is CommonJS and requires @nestjs/common and @nestjs/core, which Nest 12 ships as
 * ESM only. This setup file loads those two once, the ESM way, and test/setup/esm-bridge-transformer.cjs
 * points the throttler's require() calls at these same instances (one Nest, as in production).
 */
import * as common from '@nestjs/common';
import * as core from '@nestjs/core';

declare global {
  var __ESM_BRIDGE__: Record<string, unknown>;
}

globalThis.__ESM_BRIDGE__ = { '@nestjs/common': common, '@nestjs/core': core };

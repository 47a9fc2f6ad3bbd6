#!/usr/bin/env node
/*
 * `npm ci` refuses a lock file that lacks an optional dependency, even one for another platform.
 * When the registry a machine uses does not carry some platform bindings (here unrs-resolver's, used
 * by Jest), `npm install` skips them and leaves them out of package-lock.json. This adds the missing
 * entries with their os/cpu/libc, so npm knows to skip them everywhere they do not apply.
 *
 *   node scripts/lock-platform-bindings.cjs      (after an npm install that changed the lock)
 */
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');

const lockPath = 'package-lock.json';
const lock = JSON.parse(fs.readFileSync(lockPath, 'utf8'));
let added = 0;
for (const [path, entry] of Object.entries(lock.packages)) {
  for (const [name, version] of Object.entries(entry.optionalDependencies ?? {})) {
    const key = `node_modules/${name}`;
    const nested = `${path}/node_modules/${name}`;
    if (lock.packages[key] || lock.packages[nested]) continue;
    const match = /-(android|darwin|freebsd|linux|openharmony|win32)-([a-z0-9]+)(?:-(gnu|musl|gnueabihf|musleabihf|msvc))?$/.exec(name);
    if (!match) continue;
    const [, os, cpu, abi] = match;
    lock.packages[key] = { version, cpu: [cpu], dev: entry.dev === true || undefined, license: 'MIT', optional: true, os: [os] };
    if (abi && abi.startsWith('musl')) lock.packages[key].libc = ['musl'];
    if (abi && abi.startsWith('gnu')) lock.packages[key].libc = ['glibc'];
    added += 1;
  }
}
fs.writeFileSync(lockPath, `${JSON.stringify(lock, null, 2)}\n`);
console.log(`added ${added} platform entries`);
if (process.argv.includes('--check')) execFileSync('npm', ['ci', '--dry-run'], { stdio: 'inherit' });

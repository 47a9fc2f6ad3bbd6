import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '@app/database';
import { ensureDebianPackages } from './debian-packages.js';
import { stopChild } from './process.js';

const PYTHON = '/usr/bin/python3';

/**
 * Debian's Radicale package, installed here when missing (the machines run as root and reach Debian's
 * mirror); `.ci/run` installs it too. A test never depends on something installed by hand.
 */
export function ensureRadicale(): void {
  ensureDebianPackages(['radicale']);
}

/** A real CalDAV server (Radicale) of one test file, with plain-text users, on a free loopback port. */
export class RadicaleServer {
  private process: ChildProcess | undefined;

  private constructor(
    readonly port: number,
    private readonly directory: string,
  ) {}

  static async start(users: Record<string, string>): Promise<RadicaleServer> {
    ensureRadicale();
    const directory = mkdtempSync(join(tmpdir(), 'sched-radicale-'));
    mkdirSync(join(directory, 'collections'));
    writeFileSync(
      join(directory, 'users'),
      Object.entries(users)
        .map(([user, password]) => `${user}:${password}`)
        .join('\n') + '\n',
    );
    const server = new RadicaleServer(await freePort(), directory);
    writeFileSync(
      join(directory, 'config'),
      [
        '[server]',
        `hosts = 127.0.0.1:${server.port}`,
        '[auth]',
        'type = htpasswd',
        `htpasswd_filename = ${join(directory, 'users')}`,
        'htpasswd_encryption = plain',
        '[storage]',
        `filesystem_folder = ${join(directory, 'collections')}`,
        '[rights]',
        'type = owner_only',
        '[logging]',
        'level = warning',
        '',
      ].join('\n'),
    );
    server.process = spawn(PYTHON, ['-m', 'radicale', '--config', join(directory, 'config')], { stdio: 'ignore' });
    const deadline = Date.now() + 15_000;
    for (;;) {
      try {
        await fetch(server.url('/'));
        return server;
      } catch {
        if (Date.now() > deadline) throw new Error('Radicale did not start');
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
  }

  url(path = '/'): string {
    return `http://127.0.0.1:${this.port}${path}`;
  }

  /** A calendar collection of `user` (MKCALENDAR), e.g. `/ann/work/`. */
  async makeCalendar(user: string, password: string, path: string, displayName: string): Promise<void> {
    const body =
      '<?xml version="1.0" encoding="utf-8"?><C:mkcalendar xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav">' +
      `<D:set><D:prop><D:displayname>${displayName}</D:displayname></D:prop></D:set></C:mkcalendar>`;
    const res = await fetch(this.url(path), {
      method: 'MKCALENDAR',
      headers: { authorization: basic(user, password), 'content-type': 'application/xml' },
      body,
    });
    if (res.status !== 201) throw new Error(`MKCALENDAR ${path}: ${res.status}`);
  }

  async put(user: string, password: string, path: string, ics: string): Promise<void> {
    const res = await fetch(this.url(path), {
      method: 'PUT',
      headers: { authorization: basic(user, password), 'content-type': 'text/calendar' },
      body: ics,
    });
    if (res.status !== 201 && res.status !== 204) throw new Error(`PUT ${path}: ${res.status}`);
  }

  /** The status and body of `path` as `user` sees it. */
  async get(user: string, password: string, path: string): Promise<{ status: number; text: string }> {
    const res = await fetch(this.url(path), { headers: { authorization: basic(user, password) } });
    return { status: res.status, text: await res.text() };
  }

  async stop(): Promise<void> {
    const child = this.process;
    this.process = undefined;
    await stopChild(child);
    rmSync(this.directory, { recursive: true, force: true });
  }
}

function basic(user: string, password: string): string {
  return `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
}

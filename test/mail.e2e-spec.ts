import { ApiExcludeController } from '@nestjs/swagger';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Body, Controller, Module, Post } from '@nestjs/common';
import { ArrayNotEmpty, IsArray, IsEmail, IsIn, IsOptional, IsString } from 'class-validator';
import { simpleParser } from 'mailparser';
import { DataSource } from 'typeorm';
import { Public } from '@app/common';
import { TransactionHost } from '@app/database';
import { MailModule, MailOutbox, type IcalMethod, type OutgoingMail } from '../apps/api/src/modules/mail/index.js';
import { startTestApp, type TestApp } from './support/app.js';
import { waitFor } from './support/process.js';
import { SmtpTestServer, type ReceivedMail } from './support/smtp.js';
import { scopeOf } from './support/factories.js';

class ProbeMailBody {
  @IsArray()
  @ArrayNotEmpty()
  @IsEmail({}, { each: true })
  to!: string[];

  @IsString()
  subject!: string;

  @IsOptional()
  @IsIn(['REQUEST', 'CANCEL', 'PUBLISH'])
  icalMethod?: IcalMethod;
}

/** Mail that no organization's deletion would reach; the probe only needs a scope to write in. */
const PROBE_SCOPE = scopeOf('org_mailprobe');
const TOKEN = 'tok_SuperSecretInvitationToken123';

function mailFor(body: ProbeMailBody): OutgoingMail {
  const method = body.icalMethod;
  return {
    to: body.to,
    subject: body.subject,
    text: `Accept: https://app.test/invitations/accept?token=${TOKEN}`,
    html: `<p><a href="https://app.test/invitations/accept?token=${TOKEN}">Accept</a></p>`,
    ical: method
      ? {
          method,
          filename: 'invite.ics',
          content: [
            'BEGIN:VCALENDAR',
            'VERSION:2.0',
            'PRODID:-//mail-e2e//EN',
            `METHOD:${method}`,
            'BEGIN:VEVENT',
            'UID:bkg_mailE2eBooking0000000001',
            'DTSTAMP:20260301T080000Z',
            'DTSTART:20260302T090000Z',
            'DTEND:20260302T093000Z',
            `SUMMARY:${body.subject}`,
            'END:VEVENT',
            'END:VCALENDAR',
            '',
          ].join('\r\n'),
        }
      : undefined,
  };
}

/** Probe routes: what a feature does inside its use case, committed or rolled back. */
@Public()
// A test-only route: not part of the published API, so not in its document.
@ApiExcludeController()
@Controller('mail-probe')
class MailProbeController {
  constructor(
    private readonly tx: TransactionHost,
    private readonly outbox: MailOutbox,
  ) {}

  @Post('send')
  async send(@Body() body: ProbeMailBody): Promise<{ id: string }> {
    const id = await this.tx.transaction(() => this.outbox.enqueue(PROBE_SCOPE, mailFor(body)));
    return { id };
  }

  @Post('send-then-fail')
  async sendThenFail(@Body() body: ProbeMailBody): Promise<never> {
    return this.tx.transaction(async () => {
      await this.outbox.enqueue(PROBE_SCOPE, mailFor(body));
      throw new Error('the use case failed after recording its mail');
    });
  }
}

@Module({ imports: [MailModule], controllers: [MailProbeController] })
class MailProbeModule {}

interface OutboxRow {
  id: string;
  subject: string;
  status: string;
  attempts: number;
  last_error: string | null;
  sent_at: Date | null;
  locked_until: Date | null;
}

async function outboxRows(t: TestApp, subjectLike = '%'): Promise<OutboxRow[]> {
  return t.app.get(DataSource).query(`SELECT * FROM mail_outbox WHERE subject LIKE $1 ORDER BY created_at, id`, [subjectLike]);
}

function calendarPart(mail: ReceivedMail | { parsed: ReceivedMail['parsed'] }) {
  const part = mail.parsed.attachments.find((a) => a.contentType === 'text/calendar');
  const contentType = part?.headers.get('content-type') as { params?: Record<string, string> } | undefined;
  return { part, method: contentType?.params?.method };
}

const SMTP_PASSWORD = 'smtp-pass-Never-Logged-42';
const RETRY_ENV = { MAIL_RETRY_SCHEDULE: '1,1,1', MAIL_FROM: 'Scheduling Test <bookings@sched.test>' };

describe('mail outbox over SMTP', () => {
  let smtp: SmtpTestServer;
  let t: TestApp;
  let env: Record<string, string>;

  beforeAll(async () => {
    smtp = await SmtpTestServer.start();
    env = { ...RETRY_ENV, SMTP_URL: `smtp://mailer:${SMTP_PASSWORD}@127.0.0.1:${smtp.port}` };
    t = await startTestApp({ env, extraModules: [MailProbeModule] });
  });
  afterAll(async () => {
    await t?.close();
    await smtp?.stop();
  });

  it('sends a committed message with its text, html and calendar invitation', async () => {
    const res = await t.http.post('/v1/mail-probe/send', {
      to: ['ada@example.test', 'host@example.test'],
      subject: 'Booking confirmed',
      icalMethod: 'REQUEST',
    });
    expect(res.status).toBe(201);
    expect(res.body.id).toMatch(/^mail_[0-9A-Za-z]{20,}$/);

    const mail = await smtp.waitForMail((m) => m.parsed.subject === 'Booking confirmed');
    expect(mail.envelope.to.sort()).toEqual(['ada@example.test', 'host@example.test']);
    expect(mail.envelope.from).toBe('bookings@sched.test');
    expect(mail.parsed.from?.text).toBe('"Scheduling Test" <bookings@sched.test>');
    expect(mail.parsed.messageId).toBe(`<${res.body.id}@sched.test>`);
    expect(mail.parsed.text).toContain(`token=${TOKEN}`);
    expect(mail.parsed.html).toContain(`<a href="https://app.test/invitations/accept?token=${TOKEN}">Accept</a>`);
    const { part, method } = calendarPart(mail);
    expect(method).toBe('REQUEST');
    expect(part?.content.toString()).toContain('UID:bkg_mailE2eBooking0000000001');
    expect(mail.parsed.attachments.some((a) => a.filename === 'invite.ics')).toBe(true);

    await waitFor(
      async () => ((await outboxRows(t, 'Booking confirmed'))[0]?.status === 'sent' ? true : undefined),
      3000,
      'row marked sent',
    );
    const [row] = await outboxRows(t, 'Booking confirmed');
    expect(row).toMatchObject({ id: res.body.id, status: 'sent', attempts: 1, last_error: null, locked_until: null });
    expect(row.sent_at).toBeInstanceOf(Date);
  });

  it('never sends the mail of a rolled-back transaction', async () => {
    const failed = await t.http.post('/v1/mail-probe/send-then-fail', { to: ['ada@example.test'], subject: 'Rolled back' });
    expect(failed.status).toBe(500);
    // A later committed message is sent; by then the rolled-back one would have been too.
    const marker = await t.http.post('/v1/mail-probe/send', { to: ['ada@example.test'], subject: 'After the rollback' });
    expect(marker.status).toBe(201);
    await smtp.waitForMail((m) => m.parsed.subject === 'After the rollback');
    expect(smtp.withSubject('Rolled back')).toHaveLength(0);
    expect(await outboxRows(t, 'Rolled back')).toHaveLength(0);
  });

  it('answers at once while SMTP is down and delivers once it is back, without leaking credentials', async () => {
    await smtp.stop();
    const started = Date.now();
    const res = await t.http.post('/v1/mail-probe/send', { to: ['ada@example.test'], subject: 'Sent while down', icalMethod: 'CANCEL' });
    expect(res.status).toBe(201);
    expect(Date.now() - started).toBeLessThan(1000);

    const failedAttempt = await waitFor(
      async () => {
        const [row] = await outboxRows(t, 'Sent while down');
        return row && row.attempts >= 1 && row.last_error ? row : undefined;
      },
      5000,
      'a failed attempt',
    );
    expect(failedAttempt.status).toBe('pending');
    expect(failedAttempt.last_error).toMatch(/ECONNREFUSED|ECONNECTION/);
    expect(failedAttempt.last_error).not.toContain(SMTP_PASSWORD);

    await smtp.restart();
    const mail = await smtp.waitForMail((m) => m.parsed.subject === 'Sent while down', 5000);
    expect(calendarPart(mail).method).toBe('CANCEL');
    await waitFor(async () => ((await outboxRows(t, 'Sent while down'))[0]?.status === 'sent' ? true : undefined), 3000, 'row marked sent');
    expect(smtp.withSubject('Sent while down')).toHaveLength(1);
  });

  it('keeps delivering when the notification connection is cut', async () => {
    const dataSource = t.app.get(DataSource);
    const killed: unknown[] = await dataSource.query(
      `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'mail-worker' AND datname = current_database()`,
    );
    expect(killed.length).toBeGreaterThan(0);
    const res = await t.http.post('/v1/mail-probe/send', { to: ['ada@example.test'], subject: 'After the cut' });
    expect(res.status).toBe(201);
    await smtp.waitForMail((m) => m.parsed.subject === 'After the cut', 6000);
    // The listener comes back on its own.
    await waitFor(
      async () => {
        const rows: unknown[] = await dataSource.query(
          `SELECT 1 FROM pg_stat_activity WHERE application_name = 'mail-worker' AND datname = current_database()`,
        );
        return rows.length > 0 ? true : undefined;
      },
      5000,
      'the listener to reconnect',
    );
  });

  it('delivers each message exactly once with two instances on one database', async () => {
    const second = await startTestApp({ databaseUrl: t.databaseUrl, env, extraModules: [MailProbeModule] });
    try {
      const subjects = Array.from({ length: 16 }, (_, i) => `Concurrent ${String(i).padStart(2, '0')}`);
      const responses = await Promise.all(
        subjects.map((subject, i) => (i % 2 ? second : t).http.post('/v1/mail-probe/send', { to: ['ada@example.test'], subject })),
      );
      expect(responses.map((r) => r.status)).toEqual(subjects.map(() => 201));
      for (const subject of subjects) await smtp.waitForMail((m) => m.parsed.subject === subject, 10000);
      // Give a duplicate time to show up before counting.
      await new Promise((resolve) => setTimeout(resolve, 500));
      const deliveries = Object.fromEntries(subjects.map((subject) => [subject, smtp.withSubject(subject).length]));
      expect(deliveries).toEqual(Object.fromEntries(subjects.map((subject) => [subject, 1])));
      const rows = await outboxRows(t, 'Concurrent %');
      expect(rows).toHaveLength(subjects.length);
      expect(rows.every((r) => r.status === 'sent' && r.attempts === 1)).toBe(true);
    } finally {
      await second.close();
    }
  });
});

describe('mail worker shutdown', () => {
  it('finishes the message in flight before the instance stops', async () => {
    const slowSmtp = await SmtpTestServer.start({ delayMs: 1500 });
    const env = { ...RETRY_ENV, SMTP_URL: slowSmtp.url };
    // The API-only instance records the mail; the other one is the only worker.
    const api = await startTestApp({ env: { ...env, RUN_WORKERS: 'false' }, extraModules: [MailProbeModule] });
    try {
      const worker = await startTestApp({ databaseUrl: api.databaseUrl, env });
      const res = await api.http.post('/v1/mail-probe/send', { to: ['ada@example.test'], subject: 'In flight at shutdown' });
      expect(res.status).toBe(201);
      await waitFor(async () => ((await outboxRows(api, 'In flight%'))[0]?.locked_until ? true : undefined), 3000, 'the claim');
      await worker.close();

      expect(slowSmtp.withSubject('In flight at shutdown')).toHaveLength(1);
      const [row] = await outboxRows(api, 'In flight%');
      expect(row).toMatchObject({ status: 'sent', attempts: 1, locked_until: null });
    } finally {
      await api.close();
      await slowSmtp.stop();
    }
  });
});

describe('mail outbox without SMTP_URL', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({ env: RETRY_ENV, extraModules: [MailProbeModule] });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('writes each message as an .eml file under DATA_DIR/mail', async () => {
    const res = await t.http.post('/v1/mail-probe/send', { to: ['ada@example.test'], subject: 'Written to disk', icalMethod: 'PUBLISH' });
    expect(res.status).toBe(201);
    const dir = join(t.config.dataDir, 'mail');
    const file = join(dir, `${res.body.id}.eml`);
    await waitFor(async () => (existsSync(file) ? true : undefined), 5000, 'the .eml file');

    const parsed = await simpleParser(readFileSync(file));
    expect(parsed.subject).toBe('Written to disk');
    expect(parsed.to && !Array.isArray(parsed.to) ? parsed.to.text : '').toBe('ada@example.test');
    expect(parsed.text).toContain(`token=${TOKEN}`);
    expect(parsed.html).toContain('<a href=');
    expect(calendarPart({ parsed }).method).toBe('PUBLISH');
    expect(readdirSync(dir)).toEqual([`${res.body.id}.eml`]);
    await waitFor(async () => ((await outboxRows(t, 'Written to disk'))[0]?.status === 'sent' ? true : undefined), 3000, 'row marked sent');
  });
});

import type { AppConfig, Clock } from '@app/common';
import { isOutageError, type PeriodicJobs } from '../../jobs/index.js';
import type { CalendarDestinations } from '../calendars/index.js';
import { CalendarWriteBackWorker } from './calendar-write-back.worker.js';
import type { CalendarWritesRepository, ClaimedWrite } from './calendar-writes.repository.js';

/** Section 19: a database outage is not a write-back's failed attempt; the calendar server's failures are. */
describe('CalendarWriteBackWorker: whose failure an attempt is', () => {
  const write = { id: 'cw_1', action: 'delete', ics: null, bookingId: 'bk_1', userId: 'usr_1', organizationId: 'org_1', attempts: 1 };
  const claimed = { ...write, claim: { id: 'cw_1', lease: 'lease' } } as unknown as ClaimedWrite;

  function worker(destination: () => Promise<unknown>, davWrite: () => Promise<void>) {
    const outcomes: string[] = [];
    const queue = {
      setBack: async (_claim: unknown, error: unknown) => {
        const outage = isOutageError(error);
        if (outage) outcomes.push('set back');
        return outage;
      },
      finishWrite: async () => void outcomes.push('done'),
      retryWrite: async () => void outcomes.push('retry'),
      failWrite: async () => void outcomes.push('failed'),
      holdWrite: async () => void outcomes.push('held'),
    } as unknown as CalendarWritesRepository;
    const config = { calendarAllowPrivateUrls: true, calendarTimeoutMs: 1000, calendarRetrySchedule: [5, 60] } as AppConfig;
    const jobs = { register: () => undefined } as unknown as PeriodicJobs;
    const instance = new CalendarWriteBackWorker(config, { of: destination } as unknown as CalendarDestinations, queue, {} as Clock, jobs);
    const internals = instance as unknown as {
      dav: { write: () => Promise<void>; close(): void };
      carryOut(w: ClaimedWrite): Promise<void>;
    };
    internals.dav.close();
    internals.dav = { write: davWrite, close: () => undefined };
    return { run: () => internals.carryOut(claimed), outcomes };
  }

  const account = { calendarId: 'cal', account: () => ({}) };

  it('a database outage (57P01) while reading the destination is set back, not counted', async () => {
    const terminated = Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' });
    const { run, outcomes } = worker(
      () => Promise.reject(terminated),
      () => Promise.resolve(),
    );
    await run();
    expect(outcomes).toEqual(['set back']);
  });

  it('a connection pg never made (ECONNREFUSED) while reading the destination is set back too', async () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
    const { run, outcomes } = worker(
      () => Promise.reject(refused),
      () => Promise.resolve(),
    );
    await run();
    expect(outcomes).toEqual(['set back']);
  });

  it('the calendar server refusing the connection or timing out is the write’s own failure: retried on its schedule', async () => {
    for (const code of ['ECONNREFUSED', 'ETIMEDOUT']) {
      const refused = Object.assign(new TypeError('fetch failed'), { cause: Object.assign(new Error(code), { code }) });
      const { run, outcomes } = worker(
        () => Promise.resolve(account),
        () => Promise.reject(refused),
      );
      await run();
      expect([code, outcomes]).toEqual([code, ['retry']]);
    }
  });
});

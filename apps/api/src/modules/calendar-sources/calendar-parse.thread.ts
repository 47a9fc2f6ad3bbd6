import { parentPort } from 'node:worker_threads';
import { THREAD_READY } from './calendar-parse.protocol.js';
// Relative, not `@app/calendar`: a worker thread is loaded by Node itself, where the path alias does not exist.
import {
  busyFromICalendar,
  CalendarParseError,
  CalendarTooLargeError,
  MAX_BUSY_INTERVALS,
} from '../../../../../libs/calendar/src/index.js';

/** The service's own bookings written back to a calendar must not block themselves. */
const OWN_BOOKING_UID = /^bkg_[0-9A-Za-z]{24}$/;

export interface ParseRequest {
  id: number;
  texts: string[];
  /** CalDAV: each text is one object, and one that is not iCalendar does not hide the others' busy times. */
  eachOnItsOwn: boolean;
  timeZone: string;
  from: number;
  to: number;
}

/** Busy intervals packed as [start0, end0, start1, end1, …] (transferred, not copied), or why there are none. */
export type ParseReply = { id: number; busy: Float64Array<ArrayBuffer> } | { id: number; error: 'parse' | 'too_large'; message: string };

/** The busy intervals of a source's texts, sorted by start; throws the library's errors. */
export function busyOfTexts(request: Omit<ParseRequest, 'id'>): Float64Array<ArrayBuffer> {
  const options = { timeZone: request.timeZone, from: request.from, to: request.to, ignoreUid: (uid: string) => OWN_BOOKING_UID.test(uid) };
  const busy = request.texts.flatMap((text) => {
    try {
      return busyFromICalendar(text, options);
    } catch (error) {
      if (request.eachOnItsOwn && error instanceof CalendarParseError) return [];
      throw error;
    }
  });
  if (busy.length > MAX_BUSY_INTERVALS) throw new CalendarTooLargeError(`more than ${MAX_BUSY_INTERVALS} busy times`);
  busy.sort((x, y) => x.start - y.start);
  const packed = new Float64Array(busy.length * 2);
  busy.forEach((interval, i) => {
    packed[2 * i] = interval.start;
    packed[2 * i + 1] = interval.end;
  });
  return packed;
}

function reply({ id, ...request }: ParseRequest): ParseReply {
  try {
    return { id, busy: busyOfTexts(request) };
  } catch (error) {
    if (error instanceof CalendarParseError) return { id, error: 'parse', message: error.message };
    if (error instanceof CalendarTooLargeError) return { id, error: 'too_large', message: error.message };
    throw error;
  }
}

parentPort?.on('message', (request: ParseRequest) => {
  const answer = reply(request);
  parentPort!.postMessage(answer, 'busy' in answer ? [answer.busy.buffer] : []);
});
parentPort?.postMessage(THREAD_READY);

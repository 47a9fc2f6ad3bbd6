/** An "add to calendar" file for the booking, built in the browser (RFC 5545, times in UTC). */
export function bookingIcs(booking: { id: string; startsAt: string; endsAt: string; location: string | null }, title: string): string {
  const stamp = (instant: string): string =>
    new Date(instant)
      .toISOString()
      .replace(/[-:]/g, '')
      .replace(/\.\d{3}/, '');
  const text = (value: string): string =>
    value
      .replace(/\\/g, '\\\\')
      .replace(/\n/g, '\\n')
      .replace(/[,;]/g, (c) => `\\${c}`);
  return [
    'BEGIN:VCALENDAR',
    'VERSION:2.0',
    'PRODID:-//scheduling-api//booker//EN',
    'BEGIN:VEVENT',
    `UID:${booking.id}`,
    `DTSTAMP:${stamp(new Date().toISOString())}`,
    `DTSTART:${stamp(booking.startsAt)}`,
    `DTEND:${stamp(booking.endsAt)}`,
    `SUMMARY:${text(title)}`,
    ...(booking.location ? [`LOCATION:${text(booking.location)}`] : []),
    'END:VEVENT',
    'END:VCALENDAR',
    '',
  ].join('\r\n');
}

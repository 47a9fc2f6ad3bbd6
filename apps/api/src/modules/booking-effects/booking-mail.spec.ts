import fc from 'fast-check';
import { readerLocale, translator } from '../../i18n/index.js';
import { bookingMails, type BookingMailFacts } from './booking-mail.js';

/** RFC 5545 § 3.3.11 TEXT as it must read once unfolded. */
const escaped = (text: string): string => text.replace(/[\\;,]/g, (c) => `\\${c}`).replace(/\r\n|\r|\n/g, '\\n');
/** RFC 5545 § 3.1: a line break followed by one space is a fold. */
const unfolded = (content: string): string[] => content.replace(/\r\n /g, '').split('\r\n');

function factsOf(title: string, location: string, hostName: string, attendeeName: string): BookingMailFacts {
  return {
    bookingId: 'bkg_123',
    title,
    startsAt: new Date('2027-03-02T10:00:00Z'),
    endsAt: new Date('2027-03-02T10:30:00Z'),
    timezone: 'Europe/Berlin',
    attendeeLocale: 'en',
    organizationLocale: 'en',
    location,
    attendee: { email: 'attendee@example.com', name: attendeeName },
    hosts: [{ email: 'host@example.com', name: hostName, locale: 'en', zone: 'Asia/Tokyo', defaultLocale: 'en' }],
    confirmationToken: 'tok',
    status: 'confirmed',
    appUrl: 'https://app.example.com',
  };
}

/**
 * The invitations' content lines (RFC 5545 § 3.1), whatever the text: each line at most 75 octets and never cut inside
 * a character, and unfolded each property reads as written, SUMMARY and LOCATION included (ical-generator folds the
 * template; booking-mail.ts folds each reader's SUMMARY and DESCRIPTION).
 */
describe('booking mails’ invitations', () => {
  const text = (maxLength: number) => fc.string({ unit: 'grapheme', minLength: 1, maxLength });

  it('fold every line within 75 octets, whole characters only, and unfold to the text as written', () => {
    fc.assert(
      fc.property(text(120), text(120), text(40), text(40), (title, location, hostName, attendeeName) => {
        const [attendeeMail, hostMail] = bookingMails('confirmation', factsOf(title, location, hostName, attendeeName));
        const tr = translator(readerLocale('en', 'en'));
        for (const [mail, others] of [
          [attendeeMail, hostName],
          [hostMail, attendeeName],
        ] as const) {
          const content = mail.ical!.content;
          for (const line of content.split('\r\n')) {
            expect(Buffer.byteLength(line)).toBeLessThanOrEqual(75);
            expect(Buffer.from(line).toString()).toBe(line); // no half of a surrogate pair
          }
          const lines = unfolded(content);
          expect(lines).toContain(`SUMMARY:${escaped(tr.t('icsSummary', { title, names: others }))}`);
          expect(lines).toContain(`LOCATION:${escaped(location)}`);
        }
      }),
      { numRuns: 150 },
    );
  });

  it.each([
    ['ASCII', 'Quarterly planning, budget; and roadmap review for the whole team (part 2)'],
    ['German', 'Jahresgespräch über Änderungen der Öffnungszeiten, Überstunden und Urlaubsansprüche'],
    ['Japanese', '四半期の計画会議とロードマップの見直しについての打ち合わせ（第二部）'],
    ['emoji', '🎉🎉🎉 Launch party 🚀 with the whole team 👩‍👩‍👧‍👦 and friends 🎂🎂🎂🎂🎂🎂🎂🎂🎂🎂'],
  ])('%s: a long SUMMARY is folded and reads back whole', (_, title) => {
    const [attendeeMail] = bookingMails('confirmation', factsOf(title, 'Room 1', 'Hana Host', 'Ada Attendee'));
    const content = attendeeMail.ical!.content;
    const raw = content.split('\r\n');
    expect(raw.some((line) => line.startsWith(' '))).toBe(true); // folded at least once
    expect(raw.every((line) => Buffer.byteLength(line) <= 75 && Buffer.from(line).toString() === line)).toBe(true);
    expect(unfolded(content)).toContain(`SUMMARY:${escaped(`${title} with Hana Host`)}`);
  });
});

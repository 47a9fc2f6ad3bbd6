/** The booker's own words; dates, times, weekdays and the first day of the week come from Intl. Add a language here. */
const STRINGS = {
  en: {
    loading: 'Loading…',
    pickDay: 'Pick a day',
    pickTime: 'Pick a time',
    previousMonth: 'Previous month',
    nextMonth: 'Next month',
    noTimes: 'No free times this month.',
    timezone: 'Time zone',
    heldFor: (minutes: number) => `This time is held for you for ${minutes} min.`,
    remaining: (time: string) => `Held for ${time} more`,
    back: 'Back',
    name: 'Name',
    email: 'Email',
    phone: 'Phone',
    notes: 'Anything to share?',
    book: 'Book',
    booking: 'Booking…',
    taken: 'That time was just taken. Here are the times still free.',
    expired: 'Your hold ran out. Please pick a time again.',
    confirmed: 'You are booked',
    pending: 'Requested: the host will confirm',
    addToCalendar: 'Add to calendar (.ics)',
    where: 'Where',
    required: 'Required',
    failed: 'Something went wrong. Please try again.',
    unknown:
      'We got no answer, so we cannot tell whether this time was booked. Please check your email for a confirmation, or press Book again: it will not book twice.',
    changed:
      'This time may already be booked with the details you sent first. Please check your email for a confirmation before you book again.',
    holdLimit: 'You are holding too many times at once. Book or go back from one of them, or wait a few minutes.',
    rateLimited: (minutes: number) => `Too many attempts from your connection. Please try again in ${minutes} min.`,
    check: 'Please check the fields marked below.',
    notAllowed: 'This booking page is not allowed on this site.',
    unavailable: 'This event cannot be booked here.',
    choose: 'Choose…',
    yes: 'Yes',
  },
  de: {
    loading: 'Wird geladen…',
    pickDay: 'Tag wählen',
    pickTime: 'Uhrzeit wählen',
    previousMonth: 'Vorheriger Monat',
    nextMonth: 'Nächster Monat',
    noTimes: 'In diesem Monat sind keine Zeiten frei.',
    timezone: 'Zeitzone',
    heldFor: (minutes: number) => `Diese Zeit ist ${minutes} Min. für Sie reserviert.`,
    remaining: (time: string) => `Noch ${time} reserviert`,
    back: 'Zurück',
    name: 'Name',
    email: 'E-Mail',
    phone: 'Telefon',
    notes: 'Möchten Sie etwas mitteilen?',
    book: 'Buchen',
    booking: 'Wird gebucht…',
    taken: 'Diese Zeit wurde gerade vergeben. Hier sind die noch freien Zeiten.',
    expired: 'Ihre Reservierung ist abgelaufen. Bitte wählen Sie erneut eine Zeit.',
    confirmed: 'Sie sind gebucht',
    pending: 'Angefragt: der Gastgeber bestätigt',
    addToCalendar: 'Zum Kalender hinzufügen (.ics)',
    where: 'Ort',
    required: 'Pflichtfeld',
    failed: 'Etwas ist schiefgegangen. Bitte versuchen Sie es erneut.',
    unknown:
      'Wir haben keine Antwort erhalten und wissen daher nicht, ob diese Zeit gebucht wurde. Bitte prüfen Sie Ihre E-Mails auf eine Bestätigung oder klicken Sie erneut auf „Buchen“: Es wird nicht doppelt gebucht.',
    changed:
      'Diese Zeit ist womöglich schon mit den zuerst gesendeten Angaben gebucht. Bitte prüfen Sie Ihre E-Mails auf eine Bestätigung, bevor Sie erneut buchen.',
    holdLimit: 'Sie halten zu viele Zeiten gleichzeitig. Buchen Sie eine davon oder gehen Sie zurück, oder warten Sie einige Minuten.',
    rateLimited: (minutes: number) => `Zu viele Versuche von Ihrer Verbindung. Bitte versuchen Sie es in ${minutes} Min. erneut.`,
    check: 'Bitte prüfen Sie die markierten Felder.',
    notAllowed: 'Diese Buchungsseite ist auf dieser Website nicht erlaubt.',
    unavailable: 'Dieser Termin kann hier nicht gebucht werden.',
    choose: 'Bitte wählen…',
    yes: 'Ja',
  },
} satisfies Record<string, Record<string, unknown>>;

export type Strings = (typeof STRINGS)['en'];

/** The strings for a BCP 47 locale (its language, else English). */
export function stringsFor(locale: string): Strings {
  const language = locale.toLowerCase().split('-')[0] as keyof typeof STRINGS;
  return STRINGS[language] ?? STRINGS.en;
}

import createClient from 'openapi-fetch';
import type { components, paths } from '@app/api-types';
import { canonicalLocale, ENGLISH, stringsFor, type Strings } from './i18n';
import { bookingIcs } from './ics';
import { BOOKER_CSS } from './styles';
import {
  dateTimeOf,
  firstDayOfWeek,
  isoWeekday,
  longDate,
  minutesLeft,
  monthDates,
  monthTitle,
  offsetOf,
  shiftMonth,
  timeOf,
  todayIn,
  weekdayNames,
  zones,
} from './time';

type Schemas = components['schemas'];
type EventType = Schemas['PublicEventTypeView'];
type Slot = Schemas['PublicSlotView'];
type Hold = Schemas['PublicHoldResponse'];
type Booking = Schemas['AttendeeBookingView'];
type Question = Schemas['QuestionView'];
type RoutingForm = Schemas['PublicRoutingFormView'];
type ErrorBody = Schemas['ErrorResponseDto'];

/** The origin this script was loaded from: the API's, unless the `api` attribute says otherwise. */
const SCRIPT_ORIGIN = (() => {
  const script = document.currentScript as HTMLScriptElement | null;
  try {
    return script?.src ? new URL(script.src).origin : location.origin;
  } catch {
    return location.origin;
  }
})();

let sheet: CSSStyleSheet | undefined;

/** Constructable, so the page's Content-Security-Policy needs no inline style for it, and shared by every booker. */
function styles(): CSSStyleSheet {
  if (!sheet) {
    sheet = new CSSStyleSheet();
    sheet.replaceSync(BOOKER_CSS);
  }
  return sheet;
}

type Child = Node | string | null | undefined | false;

/** An element with attributes (`on…` functions become listeners) and children; text is never parsed as HTML. */
function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attributes: Record<string, string | number | boolean | ((event: Event) => void) | undefined> = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === false) continue;
    if (typeof value === 'function') element.addEventListener(name.slice(2).toLowerCase(), value);
    else if (value === true) element.setAttribute(name, '');
    else element.setAttribute(name, String(value));
  }
  for (const child of children) if (child !== null && child !== undefined && child !== false) element.append(child);
  return element;
}

/** Tries of one booking request before the attendee is told its outcome is unknown. */
const TRIES = 5;
const FIRST_WAIT_MS = 500;
/** A longer Retry-After than this is not waited out behind a spinner: the attendee is told instead. */
const LONGEST_WAIT_MS = 30_000;

/**
 * The wait before retry `attempt` (1, 2, …): doubling, at least the answer's Retry-After (seconds), plus up to half
 * again at random so that browsers refused together do not come back together; null when that is too long to wait.
 */
function backoff(attempt: number, response?: Response): number | null {
  const wait = Math.max(FIRST_WAIT_MS * 2 ** (attempt - 1), Number(response?.headers.get('retry-after')) * 1000 || 0);
  return wait > LONGEST_WAIT_MS ? null : wait * (1 + Math.random() / 2);
}

/**
 * Sends `request` until the API decides. No answer, a 503 or another instance still at work on the key
 * (IDEMPOTENCY_KEY_IN_USE) leave the outcome open, and only the same request (the same Idempotency-Key) can tell: it is
 * sent again after `backoff`, at most TRIES times; undefined when it is still open then.
 */
async function untilDecided<R extends { response: Response; error?: unknown }>(request: () => Promise<R>): Promise<R | undefined> {
  for (let attempt = 1; ; attempt++) {
    const result = await request().catch(() => undefined);
    const code = (result?.error as { code?: string } | undefined)?.code;
    if (result && result.response.status !== 503 && code !== 'IDEMPOTENCY_KEY_IN_USE') return result;
    const wait = attempt < TRIES ? backoff(attempt, result?.response) : null;
    if (wait === null) return undefined;
    await new Promise((resolve) => window.setTimeout(resolve, wait));
  }
}

const CONTROLS = 'input, textarea, select';

/** The form's control for a field the API names; '' when the form has none. */
function controlOf(field: string): string {
  if (field === 'attendee.email') return 'email';
  if (field.startsWith('answers.')) return `q-${field.slice(8)}`;
  return field.startsWith('attendee') ? 'name' : '';
}

function randomKey(): string {
  return Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, '0')).join('');
}

/** Sets a control to an answer of its question's type (checkboxes of a multiselect: checked when listed). */
function fillControl(control: HTMLInputElement, value: unknown): void {
  if (control.type === 'checkbox') control.checked = Array.isArray(value) ? value.includes(control.value) : value === true;
  else control.value = String(value);
}

/**
 * `<sched-booker key="pk_…" event-type="evt_…">`: the booking flow of api-rules.md § Browser booking in its own open shadow root.
 * Days with free slots → that day's times in the chosen zone → a hold while the form is filled in → book → a
 * confirmation with an "add to calendar" file. Talks to the public routes with a publishable key. With `form="rtf_…"`
 * instead of `event-type`, a routing form comes first (contract § 22): its answers choose the event type and its hosts
 * (the times are those of the routed hosts), or a message, or a link.
 */
export class SchedBooker extends HTMLElement {
  static observedAttributes = ['key', 'event-type', 'form', 'timezone', 'locale', 'api', 'booking', 'token'];

  private readonly root: ShadowRoot;
  private readonly live: HTMLElement;
  private readonly main: HTMLElement;
  private started = false;
  private eventType: EventType | null = null;
  private month = '';
  private slots: Slot[] = [];
  /** The first month's slots, asked for together with the event type. */
  private prefetched: Slot[] | null = null;
  private day: string | null = null;
  private hold: Hold | null = null;
  /** The start the form books: the hold's, or a time whose hold was refused with HOLD_LIMIT_REACHED (booked without one). */
  private chosen: string | null = null;
  /** The Idempotency-Key of the hold on its way for the latest choice of a time; a hold answered to an older one is released. */
  private choice: string | null = null;
  private booking: Booking | null = null;
  private timeZone = '';
  private errors = new Map<string, string>();
  private idempotencyKey = randomKey();
  private countdown: number | undefined;
  /** Managing a booking: picking its new time (the times lead to a confirmation, not a hold). */
  private moving = false;
  /** The booking this element moved the attendee's booking to, and its token (the old one's is dead then). */
  private moved: { id: string; token: string } | null = null;
  /** `form`: the routing form shown first, and the response that routed the attendee (sent with availability, hold, booking). */
  private routingForm: RoutingForm | null = null;
  private routed: { id: string; answers: Record<string, unknown> } | null = null;
  /** Why the last month's availability was refused (a routed response may have stopped routing). */
  private monthError: ErrorBody | undefined;
  /** The words of the locale in force (English until another one's catalog has come, i18n.ts). */
  private strings: Strings = ENGLISH;

  constructor() {
    super();
    this.root = this.attachShadow({ mode: 'open' });
    this.root.adoptedStyleSheets = [styles()];
    this.live = h('div', { class: 'status', role: 'status', 'aria-live': 'polite' });
    this.main = h('div');
    this.root.append(h('div', { class: 'booker', part: 'booker' }, this.live, this.main));
  }

  connectedCallback(): void {
    if (this.started) return;
    this.started = true;
    window.addEventListener('pagehide', this.leave);
    window.addEventListener('pageshow', this.back);
    this.timeZone = this.getAttribute('timezone') || Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
    this.month = todayIn(this.timeZone).slice(0, 8) + '01';
    void this.start();
  }

  /** `booking` and `token` (the links of the attendee's mails): manage that booking; `form`: the routing form; otherwise the booking flow. */
  private async start(): Promise<void> {
    this.routed = null;
    const locale = this.locale;
    const strings = await stringsFor(locale, SCRIPT_ORIGIN);
    // Another start (a new attribute) began while these words were on their way: it goes on, not this one.
    if (locale !== this.locale) return;
    this.strings = strings;
    if (this.getAttribute('booking') && this.getAttribute('token')) return this.manage();
    return this.getAttribute('form') ? this.loadRoutingForm() : this.load();
  }

  disconnectedCallback(): void {
    window.clearInterval(this.countdown);
    window.removeEventListener('pagehide', this.leave);
    window.removeEventListener('pageshow', this.back);
    this.leave();
  }

  /**
   * The attendee leaves (the page goes, or the element): its hold ends now, not at its expiry (sent even as the page
   * unloads). A page kept in the back/forward cache (`persisted`) keeps the chosen time: `back` holds it again.
   */
  private readonly leave = (event?: Event): void => {
    const held = this.hold;
    window.clearInterval(this.countdown);
    this.hold = null;
    this.choice = null;
    if (!(event as PageTransitionEvent | undefined)?.persisted) this.chosen = null;
    if (held) void this.releaseHold(held);
  };

  private releaseHold(held: Hold): Promise<unknown> {
    return this.api
      .POST('/v1/public/holds/{id}/release', {
        params: { path: { id: held.hold.id } },
        body: { holdToken: held.holdToken },
        keepalive: true,
      })
      .catch(() => undefined);
  }

  /** Back from the back/forward cache with the form shown: its time is held again (or taken, or booked without a hold). */
  private readonly back = (event: PageTransitionEvent): void => {
    if (event.persisted && this.chosen) void this.placeHold(this.chosen);
  };

  attributeChangedCallback(name: string): void {
    this.moving = false;
    // Another booking to manage: what this element moved is no longer it. A new locale or zone keeps the moved booking.
    if (name === 'booking' || name === 'token') this.moved = null;
    if (this.started) void this.start();
  }

  private get locale(): string {
    return this.getAttribute('locale') || document.documentElement.lang || navigator.language || 'en';
  }

  private get t(): Strings {
    return this.strings;
  }

  private get api() {
    return this.client(this.getAttribute('key'));
  }

  /** The attendee-token routes: the token goes with each request, and a publishable key there would be refused. */
  private get attendee() {
    return this.client(null);
  }

  private client(key: string | null) {
    const base = this.getAttribute('api') || `${SCRIPT_ORIGIN}/v1`;
    return createClient<paths>({ baseUrl: base.replace(/\/v1\/?$/, ''), headers: key ? { authorization: `ApiKey ${key}` } : {} });
  }

  private announce(message: string): void {
    this.live.textContent = message;
  }

  /** What to say about a refusal after which the attendee can carry on from where they are. */
  private refusal(response: Response): string {
    if (response.status !== 429) return this.t.failed;
    return this.t.rateLimited(Math.max(1, Math.ceil(Number(response.headers.get('retry-after')) / 60) || 0));
  }

  private fail(error: ErrorBody | undefined): void {
    window.clearInterval(this.countdown);
    this.chosen = null;
    const message =
      error?.code === 'ORIGIN_NOT_ALLOWED' || error === undefined
        ? this.t.notAllowed
        : error.code === 'NOT_FOUND' || error.code === 'EVENT_TYPE_INACTIVE'
          ? this.t.unavailable
          : this.t.failed;
    this.main.replaceChildren(h('p', { class: 'error', role: 'alert' }, message));
  }

  private async load(id = this.getAttribute('event-type') ?? ''): Promise<void> {
    this.main.replaceChildren(h('p', { class: 'muted' }, this.t.loading));
    try {
      // The event type and its first month's slots at once: the time to the first bookable times is one round trip.
      const [{ data, error }] = await Promise.all([
        this.api.GET('/v1/public/event-types/{id}', { params: { path: { id } } }),
        this.fetchMonth(id).then((slots) => (this.prefetched = slots)),
      ]);
      if (!data) return this.fail(error);
      this.eventType = data.eventType;
      await this.loadMonth();
    } catch {
      // A refused origin gets no CORS headers: the browser reports a network error, not the 403.
      this.fail(undefined);
    }
  }

  /** The month's slots in the chosen zone; null when refused (the event type's own answer tells why). */
  private async fetchMonth(eventTypeId: string): Promise<Slot[] | null> {
    const dates = monthDates(this.month);
    const { data, error } = await this.api.GET('/v1/public/availability', {
      params: {
        query: {
          eventTypeId,
          start: dates[0],
          end: dates[dates.length - 1],
          timezone: this.timeZone,
          ...(this.routed ? { routingResponseId: this.routed.id } : {}),
        },
      },
    });
    this.monthError = error;
    return data?.slots ?? null;
  }

  private async loadMonth(): Promise<void> {
    const prefetched = this.prefetched;
    this.prefetched = null;
    const slots = prefetched ?? (await this.fetchMonth(this.eventType!.id));
    if (slots === null) {
      if (this.reroute(this.monthError)) return;
      return this.fail({ code: 'INTERNAL_ERROR', message: '', requestId: '' });
    }
    this.slots = slots;
    if (this.day && !this.slots.some((slot) => slot.start.startsWith(this.day!))) this.day = null;
    this.day ??= this.slots[0]?.start.slice(0, 10) ?? null;
    this.renderDays();
  }

  /** The month grid (arrow keys move between days) and the chosen day's times. */
  private renderDays(focusDay?: string): void {
    const t = this.t;
    const eventType = this.eventType!;
    const first = firstDayOfWeek(this.locale);
    const names = weekdayNames(this.locale, first);
    const dates = monthDates(this.month);
    const available = new Set(this.slots.map((slot) => slot.start.slice(0, 10)));
    const today = todayIn(this.timeZone);
    const windowEnd = shiftMonth(today, Math.ceil(eventType.bookingWindowDays / 28) + 1);
    const lead = (isoWeekday(dates[0]) - first + 7) % 7;

    const grid = h('div', { class: 'grid', role: 'group', 'aria-label': monthTitle(this.month, this.locale) });
    for (const name of names) grid.append(h('div', { class: 'weekday', 'aria-hidden': 'true', title: name.long }, name.short));
    for (let i = 0; i < lead; i++) grid.append(h('div', { 'aria-hidden': 'true' }));
    for (const date of dates) {
      const has = available.has(date);
      grid.append(
        h(
          'button',
          {
            type: 'button',
            class: has ? 'has' : '',
            'data-date': date,
            disabled: !has,
            'aria-pressed': String(date === this.day),
            'aria-label': longDate(date, this.locale),
            tabindex: date === (this.day ?? '') ? 0 : -1,
            onclick: () => {
              this.day = date;
              this.renderDays(date);
            },
            onkeydown: (event: Event) => this.moveDay(event as KeyboardEvent, date, available),
          },
          String(Number(date.slice(8))),
        ),
      );
    }

    const times = this.slots.filter((slot) => this.day !== null && slot.start.startsWith(this.day));
    const list = h('ul', { class: 'times', 'aria-label': t.pickTime });
    times.forEach((slot, index) =>
      list.append(
        h(
          'li',
          {},
          h(
            'button',
            {
              type: 'button',
              'data-start': slot.start,
              tabindex: index === 0 ? 0 : -1,
              onclick: () => (this.moving ? this.confirmMove(slot) : void this.placeHold(slot.start)),
              onkeydown: (event: Event) => this.moveTime(event as KeyboardEvent, list),
            },
            timeOf(slot.start, this.locale, this.timeZone),
          ),
        ),
      ),
    );

    const zoneId = 'sched-zone';
    const zonePicker = h('input', {
      id: zoneId,
      list: 'sched-zones',
      value: this.timeZone,
      autocomplete: 'off',
      'aria-describedby': 'sched-zone-offset',
      onchange: (event: Event) => {
        const value = (event.target as HTMLInputElement).value.trim();
        const zone = zones().find((z) => z.zone === value || z.label === value)?.zone;
        if (!zone) return;
        this.timeZone = zone;
        void this.loadMonth();
      },
    });
    // Filled when the picker is first used: the list of every zone costs more than the rest of the first render.
    const options = h('datalist', { id: 'sched-zones' });
    const fill = (): void => {
      if (options.childElementCount === 0) for (const zone of zones()) options.append(h('option', { value: zone.zone }, zone.label));
    };
    zonePicker.addEventListener('focus', fill);
    zonePicker.addEventListener('input', fill);

    this.main.replaceChildren(
      h('h2', {}, eventType.title),
      h('p', { class: 'muted' }, `${eventType.durationMinutes} min`),
      h('label', { for: zoneId }, t.timezone),
      zonePicker,
      options,
      h('p', { class: 'muted', id: 'sched-zone-offset' }, offsetOf(this.timeZone)),
      h(
        'div',
        { class: 'row' },
        h(
          'button',
          {
            type: 'button',
            'aria-label': t.previousMonth,
            disabled: this.month <= today.slice(0, 8) + '01',
            onclick: () => this.changeMonth(-1),
          },
          '‹',
        ),
        h('h3', { 'aria-live': 'polite' }, monthTitle(this.month, this.locale)),
        h(
          'button',
          { type: 'button', 'aria-label': t.nextMonth, disabled: this.month >= windowEnd, onclick: () => this.changeMonth(1) },
          '›',
        ),
      ),
      h('h3', { class: 'sr-only' }, t.pickDay),
      grid,
      h('h3', {}, this.day ? longDate(this.day, this.locale) : t.pickTime),
      times.length > 0 ? list : h('p', { class: 'muted' }, t.noTimes),
    );
    if (this.moving)
      this.main.append(h('div', { class: 'actions' }, h('button', { type: 'button', onclick: () => this.renderManage() }, t.back)));
    if (focusDay) this.root.querySelector<HTMLButtonElement>(`button[data-date="${focusDay}"]`)?.focus();
  }

  private changeMonth(delta: number): void {
    this.month = shiftMonth(this.month, delta);
    this.day = null;
    void this.loadMonth();
  }

  /** Arrow keys move between days that have times (left/right a day, up/down a week), Home/End to the month's ends. */
  private moveDay(event: KeyboardEvent, date: string, available: Set<string>): void {
    const steps: Record<string, number> = { ArrowLeft: -1, ArrowRight: 1, ArrowUp: -7, ArrowDown: 7 };
    const dates = monthDates(this.month).filter((d) => available.has(d));
    let target: string | undefined;
    if (event.key in steps) {
      const step = steps[event.key];
      const all = monthDates(this.month);
      for (let i = all.indexOf(date) + step; i >= 0 && i < all.length; i += Math.sign(step)) {
        if (available.has(all[i]) && (Math.abs(step) === 1 || (i - all.indexOf(date)) % 7 === 0)) {
          target = all[i];
          break;
        }
      }
    } else if (event.key === 'Home') target = dates[0];
    else if (event.key === 'End') target = dates[dates.length - 1];
    if (!target) return;
    event.preventDefault();
    this.day = target;
    this.renderDays(target);
  }

  /** Arrow keys move through the times; Enter or Space picks one. */
  private moveTime(event: KeyboardEvent, list: HTMLElement): void {
    const buttons = [...list.querySelectorAll('button')];
    const index = buttons.indexOf(event.target as HTMLButtonElement);
    const next = { ArrowDown: 1, ArrowRight: 1, ArrowUp: -1, ArrowLeft: -1 }[event.key];
    if (next === undefined) return;
    event.preventDefault();
    const target = buttons[Math.min(buttons.length - 1, Math.max(0, index + next))];
    buttons.forEach((button) => button.setAttribute('tabindex', button === target ? '0' : '-1'));
    target.focus();
  }

  /** A time went to someone else: the month's times again, then the message, so what is said is what is shown. */
  private async showTaken(): Promise<void> {
    this.chosen = null;
    await this.loadMonth();
    this.announce(this.t.taken);
  }

  /**
   * Holds `start` for the form. One Idempotency-Key for this choice of a time and every retry of it (`untilDecided`): a
   * hold whose answer was lost is replayed with its token, never placed twice (no orphan hold counts against the visitor).
   */
  private async placeHold(start: string): Promise<void> {
    const eventType = this.eventType!;
    const key = randomKey();
    this.choice = key;
    const body = { eventTypeId: eventType.id, startTime: start, timezone: this.timeZone, ...this.routedBody() };
    const params = { header: { 'Idempotency-Key': key } } as never;
    const result = await untilDecided(() => this.api.POST('/v1/public/holds', { body, params }));
    // Another time was chosen (or the attendee left) while this one was on its way: its hold is not wanted.
    if (this.choice !== key) return void (result?.data && this.releaseHold(result.data));
    if (!result) return this.announce(this.t.failed);
    const { data, error, response } = result;
    if (!data) {
      if (error?.code === 'SLOT_UNAVAILABLE') return this.showTaken();
      // A hold refused by its limits does not stop the attendee (api-rules.md § Browser booking): the form books the time
      // without one, and the API decides the booking as any other.
      if (error?.code === 'HOLD_LIMIT_REACHED') return this.openForm(start, null, this.t.notHeld);
      if (response.status === 429) return this.announce(this.refusal(response));
      if (this.reroute(error)) return;
      return this.fail(error);
    }
    this.dispatch('sched:held', { holdId: data.hold.id, startsAt: data.hold.startsAt, endsAt: data.hold.endsAt, status: 'held' });
    this.openForm(data.hold.startsAt, data, this.t.heldFor(eventType.holdMinutes));
  }

  /** The form for `start`, kept by `hold` (counted down) or by nothing. */
  private openForm(start: string, hold: Hold | null, message: string): void {
    this.hold = hold;
    this.chosen = start;
    this.errors.clear();
    this.idempotencyKey = randomKey();
    this.announce(message);
    this.renderForm();
    window.clearInterval(this.countdown);
    if (hold) this.countdown = window.setInterval(() => this.tick(), 1000);
  }

  private tick(): void {
    const clock = this.root.querySelector('[data-countdown]');
    if (!this.hold || !clock) return window.clearInterval(this.countdown);
    const left = minutesLeft(this.hold.hold.expiresAt);
    clock.textContent = this.t.remaining(left);
    if (left === '0:00') {
      window.clearInterval(this.countdown);
      this.hold = null;
      this.chosen = null;
      this.announce(this.t.expired);
      void this.loadMonth();
    }
  }

  private async release(): Promise<void> {
    window.clearInterval(this.countdown);
    const held = this.hold;
    this.hold = null;
    this.chosen = null;
    this.choice = null;
    if (held) await this.releaseHold(held);
    this.announce('');
    await this.loadMonth();
  }

  /** The attendee's fields and the event type's questions, each with its native control, errors beside them. */
  private renderForm(): void {
    const t = this.t;
    const held = this.hold;
    const start = this.chosen!;
    const field = this.field;
    const form = h('form', {
      novalidate: true,
      onsubmit: (event: Event) => {
        event.preventDefault();
        void this.book(form);
      },
    });
    form.append(
      field('name', t.name, h('input', { name: 'name', autocomplete: 'name', value: this.getAttribute('name') ?? '' }), true),
      field(
        'email',
        t.email,
        h('input', { name: 'email', type: 'email', autocomplete: 'email', value: this.getAttribute('email') ?? '' }),
        true,
      ),
      ...(this.eventType!.questions ?? []).map((question) => this.questionField(question)),
      h(
        'div',
        { class: 'actions' },
        h('button', { type: 'button', onclick: () => void this.release() }, t.back),
        h('button', { type: 'submit', class: 'primary' }, t.book),
      ),
    );
    // The routing form's answers to the same questions (same id and type), shown as the booking will take them.
    const routedFields = this.routingForm?.fields ?? [];
    for (const question of this.eventType!.questions ?? []) {
      const value = this.routed?.answers[question.id];
      if (value === undefined || !routedFields.some((f) => f.id === question.id && f.type === question.type)) continue;
      form.querySelectorAll<HTMLInputElement>(`[name="answers.${question.id}"]`).forEach((control) => fillControl(control, value));
    }
    this.show(
      form,
      h('h2', {}, this.eventType!.title),
      h('p', {}, dateTimeOf(start, this.locale, this.timeZone), ` (${this.timeZone})`),
      ...(held ? [h('p', { class: 'muted', 'data-countdown': true }, t.remaining(minutesLeft(held.hold.expiresAt)))] : []),
    );
    if (!this.root.querySelector('[aria-invalid="true"]')) this.root.querySelector<HTMLElement>('#sched-name')?.focus();
  }

  /**
   * Shows `form` after `before`; re-rendered to show errors, what the attendee entered stays (the same fields, in the
   * same order) and the first invalid field has the focus.
   */
  private show(form: HTMLFormElement, ...before: HTMLElement[]): void {
    const entered = [...(this.root.querySelector('form')?.querySelectorAll<HTMLInputElement>(CONTROLS) ?? [])];
    this.main.replaceChildren(...before, form);
    form.querySelectorAll<HTMLInputElement>(CONTROLS).forEach((control, index) => {
      if (!entered[index]) return;
      control.value = entered[index].value;
      control.checked = entered[index].checked;
    });
    this.root.querySelector<HTMLElement>('[aria-invalid="true"]')?.focus();
  }

  /** A labelled control, its error (`this.errors`) beside it and named by it. */
  private readonly field = (id: string, label: string, control: HTMLElement, required = false): HTMLElement => {
    const error = this.errors.get(id);
    control.id = `sched-${id}`;
    if (required) control.setAttribute('required', '');
    if (error) {
      control.setAttribute('aria-invalid', 'true');
      control.setAttribute('aria-describedby', `sched-${id}-error`);
    }
    const wrapper = h('div', {}, h('label', { for: control.id }, label, required ? ' *' : ''), control);
    if (error) wrapper.append(h('p', { class: 'error', id: `sched-${id}-error` }, error));
    return wrapper;
  };

  /** The control of a booking question, or of a routing form's field (the same shape). */
  private questionField(question: Question): HTMLElement {
    const field = this.field;
    const id = `q-${question.id}`;
    const name = `answers.${question.id}`;
    const base = { name, placeholder: question.placeholder };
    switch (question.type) {
      case 'textarea':
        return field(id, question.label, h('textarea', { ...base, maxlength: question.maxLength, rows: 3 }), question.required);
      case 'select': {
        const select = h('select', { name }, h('option', { value: '' }, this.t.choose));
        for (const option of question.options ?? []) select.append(h('option', { value: option }, option));
        return field(id, question.label, select, question.required);
      }
      case 'multiselect': {
        const box = h('fieldset', { name });
        box.append(h('legend', { class: 'sr-only' }, question.label));
        for (const option of question.options ?? []) {
          box.append(h('label', { class: 'check' }, h('input', { type: 'checkbox', name, value: option }), option));
        }
        return field(id, question.label, box, question.required);
      }
      case 'checkbox': {
        const error = this.errors.get(id);
        return h(
          'div',
          {},
          h(
            'label',
            { class: 'check' },
            h('input', { type: 'checkbox', id: `sched-${id}`, name, 'aria-invalid': error ? 'true' : undefined }),
            question.label,
            question.required ? ' *' : '',
          ),
          error ? h('p', { class: 'error' }, error) : null,
        );
      }
      default: {
        const types: Record<string, string> = { email: 'email', phone: 'tel', number: 'number', date: 'date', text: 'text' };
        return field(
          id,
          question.label,
          h('input', { ...base, type: types[question.type] ?? 'text', maxlength: question.maxLength }),
          question.required,
        );
      }
    }
  }

  private answersOf(form: HTMLFormElement, questions: Question[]): Record<string, unknown> {
    const answers: Record<string, unknown> = {};
    for (const question of questions) {
      const name = `answers.${question.id}`;
      const inputs = [...form.querySelectorAll<HTMLInputElement>(`[name="${name}"]`)];
      if (question.type === 'checkbox') answers[question.id] = inputs[0]?.checked ?? false;
      else if (question.type === 'multiselect') {
        const chosen = inputs.filter((input) => input.checked).map((input) => input.value);
        if (chosen.length > 0) answers[question.id] = chosen;
      } else {
        const value = (inputs[0]?.value ?? '').trim();
        if (value !== '') answers[question.id] = question.type === 'number' ? Number(value) : value;
      }
    }
    return answers;
  }

  private async book(form: HTMLFormElement): Promise<void> {
    const t = this.t;
    const held = this.hold;
    const start = this.chosen;
    if (!start) return;
    // Booked as it stands: a hold still on its way (held again on coming back to the page) is not waited for.
    this.choice = null;
    const value = (name: string): string => (form.querySelector<HTMLInputElement>(`[name="${name}"]`)?.value ?? '').trim();
    const [firstName, ...rest] = value('name').split(/\s+/);
    this.errors.clear();
    if (!value('name')) this.errors.set('name', t.required);
    if (!value('email')) this.errors.set('email', t.required);
    if (this.errors.size > 0) {
      this.announce(t.check);
      return this.renderForm();
    }
    const submit = form.querySelector<HTMLButtonElement>('button[type="submit"]');
    if (submit) {
      submit.disabled = true;
      submit.textContent = t.booking;
    }
    const body = {
      eventTypeId: this.eventType!.id,
      startTime: start,
      timezone: this.timeZone,
      attendee: {
        email: value('email'),
        firstName,
        ...(rest.length > 0 ? { lastName: rest.join(' ') } : {}),
        // The attendee's mails are in the booker's language (contract § 23).
        ...(canonicalLocale(this.locale) ? { locale: canonicalLocale(this.locale) } : {}),
      },
      answers: this.answersOf(form, this.eventType!.questions ?? []),
      ...(held ? { holdId: held.hold.id, holdToken: held.holdToken } : {}),
      ...this.routedBody(),
    };
    // One key for this form's booking and every retry of it: an answer lost on its way back books once, and is replayed.
    const params = { header: { 'Idempotency-Key': this.idempotencyKey } } as never;
    const result = await untilDecided(() => this.api.POST('/v1/public/bookings', { body, params }));
    if (submit) {
      submit.disabled = false;
      submit.textContent = t.book;
    }
    // Sending it again is safe (the same key): it books once or replays what was booked.
    if (!result) return this.announce(t.unknown);
    const { data, error, response } = result;
    if (data) {
      window.clearInterval(this.countdown);
      this.hold = null;
      this.chosen = null;
      this.booking = data.booking;
      this.dispatch('sched:booked', {
        bookingId: data.booking.id,
        startsAt: data.booking.startsAt,
        endsAt: data.booking.endsAt,
        status: data.booking.status,
      });
      return this.renderDone();
    }
    if (this.reroute(error)) return;
    if (error?.code === 'VALIDATION_ERROR') return this.invalid(error, () => this.renderForm());
    if (error?.code === 'SLOT_UNAVAILABLE') {
      window.clearInterval(this.countdown);
      this.hold = null;
      this.chosen = null;
      return this.showTaken();
    }
    if (error?.code === 'NOT_FOUND' || error?.code === 'EVENT_TYPE_INACTIVE') return this.fail(error);
    // The key already went with other details (changed after an unknown outcome): that request may have booked.
    if (error?.code === 'IDEMPOTENCY_KEY_REUSED') return this.announce(t.changed);
    this.announce(this.refusal(response));
  }

  /** A VALIDATION_ERROR: each detail beside its field, then `render` shows them. */
  private invalid(error: ErrorBody, render: () => void): void {
    for (const detail of error.details ?? []) {
      const id = controlOf(detail.field);
      if (id) this.errors.set(id, detail.message);
    }
    // A field the form does not have is the booker's fault, not the attendee's.
    this.announce(this.errors.size > 0 ? this.t.check : this.t.failed);
    render();
  }

  /**
   * A response that routes no more (24 hours old, or already booked through: contract § 22) is 400 naming
   * `routingResponseId` on availability, holds and bookings: the attendee is taken back to the form to answer again.
   * False for any other error.
   */
  private reroute(error: ErrorBody | undefined): boolean {
    if (!this.routed || !error?.details?.some((detail) => detail.field === 'routingResponseId')) return false;
    window.clearInterval(this.countdown);
    const held = this.hold;
    this.hold = null;
    this.chosen = null;
    this.choice = null;
    if (held) void this.releaseHold(held);
    this.routed = null;
    this.eventType = null;
    this.errors.clear();
    this.renderRoutingForm();
    this.announce(this.t.answerAgain);
    this.root.querySelector<HTMLElement>('input, select, textarea')?.focus();
    return true;
  }

  /** The routed response, on the availability, the hold and the booking: only its hosts are offered and booked. */
  private routedBody(): { routingResponseId?: string } {
    return this.routed ? { routingResponseId: this.routed.id } : {};
  }

  private async loadRoutingForm(): Promise<void> {
    this.main.replaceChildren(h('p', { class: 'muted' }, this.t.loading));
    try {
      const { data, error } = await this.api.GET('/v1/public/routing-forms/{id}', {
        params: { path: { id: this.getAttribute('form') ?? '' } },
      });
      if (!data) return this.fail(error);
      this.routingForm = data.routingForm;
      this.errors.clear();
      this.renderRoutingForm();
    } catch {
      this.fail(undefined);
    }
  }

  /** The routing form's fields, rendered as booking questions are. */
  private renderRoutingForm(): void {
    const routingForm = this.routingForm!;
    const form = h(
      'form',
      {
        novalidate: true,
        onsubmit: (event: Event) => {
          event.preventDefault();
          void this.submitRoutingForm(form);
        },
      },
      ...routingForm.fields.map((question) => this.questionField(question)),
      h('div', { class: 'actions' }, h('button', { type: 'submit', class: 'primary' }, this.t.next)),
    );
    this.show(form, h('h2', {}, routingForm.name));
  }

  /**
   * POST /public/routing-forms/:id/responses (the route takes no Idempotency-Key: a response sent twice is only a second
   * response, and it routes nothing until booked). Its route: the event type's times for the routed hosts, a message, or
   * a link (https only, never followed by itself).
   */
  private async submitRoutingForm(form: HTMLFormElement): Promise<void> {
    const t = this.t;
    const routingForm = this.routingForm!;
    const answers = this.answersOf(form, routingForm.fields);
    const submit = form.querySelector<HTMLButtonElement>('button[type="submit"]')!;
    submit.disabled = true;
    this.errors.clear();
    const result = await this.api
      .POST('/v1/public/routing-forms/{id}/responses', { params: { path: { id: routingForm.id } }, body: { answers } })
      .catch(() => undefined);
    submit.disabled = false;
    if (!result) return this.announce(t.failed);
    const { data, error, response } = result;
    if (!data) {
      if (error?.code === 'VALIDATION_ERROR') return this.invalid(error, () => this.renderRoutingForm());
      if (error?.code === 'NOT_FOUND') return this.fail(error);
      return this.announce(this.refusal(response));
    }
    const { id, route } = data.response;
    this.announce('');
    if (route.eventTypeId) {
      this.routed = { id, answers };
      await this.load(route.eventTypeId);
      const title = this.root.querySelector<HTMLElement>('h2');
      title?.setAttribute('tabindex', '-1');
      return title?.focus();
    }
    const https = route.url && /^https:\/\//i.test(route.url) ? route.url : null;
    const said = route.message ?? (https ? t.continueThere : t.failed);
    this.announce(said);
    this.main.replaceChildren(h('h2', { tabindex: -1 }, routingForm.name), h('p', {}, said));
    if (https) this.main.append(h('p', {}, h('a', { href: https, rel: 'noopener' }, https)));
    this.root.querySelector<HTMLElement>('h2')?.focus();
  }

  private renderDone(): void {
    const t = this.t;
    const booking = this.booking!;
    const ics = bookingIcs(booking, this.eventType!.title);
    const link = h(
      'a',
      { href: URL.createObjectURL(new Blob([ics], { type: 'text/calendar' })), download: 'booking.ics' },
      t.addToCalendar,
    );
    this.announce(booking.status === 'pending' ? t.pending : t.confirmed);
    this.main.replaceChildren(
      h('h2', { tabindex: -1 }, booking.status === 'pending' ? t.pending : t.confirmed),
      h('p', {}, this.eventType!.title),
      h('p', {}, dateTimeOf(booking.startsAt, this.locale, this.timeZone), ` (${this.timeZone})`),
      ...(booking.location
        ? [h('p', {}, `${t.where}: `, booking.meetingUrl ? h('a', { href: booking.meetingUrl }, booking.location) : booking.location)]
        : []),
      ...this.policyLines(booking),
      h('p', {}, link),
    );
    this.root.querySelector<HTMLElement>('h2')?.focus();
  }

  /** What the event type's policy allows the attendee (api-rules.md § Scheduling policies), in words. */
  private policyLines(booking: Booking): HTMLElement[] {
    const t = this.t;
    return [
      h(
        'p',
        { class: 'policy' },
        booking.attendeeCanCancelUntil ? t.cancelUntil(this.when(booking.attendeeCanCancelUntil)) : t.cancelForbidden,
      ),
      h(
        'p',
        { class: 'policy' },
        booking.attendeeCanRescheduleUntil ? t.rescheduleUntil(this.when(booking.attendeeCanRescheduleUntil)) : t.rescheduleForbidden,
      ),
    ];
  }

  private when(instant: string): string {
    return `${dateTimeOf(instant, this.locale, this.timeZone)} (${this.timeZone})`;
  }

  /** The attendee's token, as the attendee routes take it: after a reschedule, the new booking's. */
  private get token(): string {
    return this.moved?.token ?? this.getAttribute('token') ?? '';
  }

  /**
   * "Manage your booking": the booking as its attendee sees it, until when it may still be cancelled or rescheduled
   * online, and Cancel and Reschedule buttons while the policy allows each (Reschedule also needs `key`: the free
   * times are the public ones). A refusal (409 CHANGE_NOT_ALLOWED, …) is said in words; nothing is changed then.
   */
  private async manage(): Promise<void> {
    const t = this.t;
    this.main.replaceChildren(h('p', { class: 'muted' }, t.loading));
    const id = this.moved?.id ?? this.getAttribute('booking') ?? '';
    try {
      const { data } = await this.attendee.GET('/v1/public/bookings/{id}', {
        params: { path: { id }, header: { Authorization: `Token ${this.token}` } },
      });
      if (!data) return void this.main.replaceChildren(h('p', { class: 'error', role: 'alert' }, t.badLink));
      this.booking = data.booking;
      this.renderManage();
    } catch {
      this.fail(undefined);
    }
  }

  private renderManage(): void {
    const t = this.t;
    const booking = this.booking!;
    const active = booking.status !== 'cancelled';
    const open = (until: string | null): boolean => active && until !== null && Date.parse(until) >= Date.now();
    const button = h('button', { type: 'button', class: 'primary', onclick: () => void this.cancelBooking(button) }, t.cancelBooking);
    const move = h('button', { type: 'button', onclick: () => void this.pickNewTime() }, t.reschedule);
    const cancelOpen = open(booking.attendeeCanCancelUntil);
    const moveOpen = open(booking.attendeeCanRescheduleUntil) && !!this.getAttribute('key');
    this.moving = false;
    this.main.replaceChildren(
      h('h2', { tabindex: -1 }, active ? t.yourBooking : t.cancelled),
      h('p', {}, dateTimeOf(booking.startsAt, this.locale, this.timeZone), ` (${this.timeZone})`),
      ...(active ? this.policyLines(booking) : []),
      ...(cancelOpen || moveOpen ? [h('div', { class: 'actions' }, moveOpen && move, cancelOpen && button)] : []),
    );
  }

  /** The free times of the booking's event type, through the booking flow's own picker. */
  private pickNewTime(): Promise<void> {
    this.announce('');
    this.moving = true;
    return this.load(this.booking!.eventTypeId);
  }

  /** The picked time, from where, and a button that moves the booking there. */
  private confirmMove(slot: Slot): void {
    const t = this.t;
    // One key for this move and every retry of it: a move whose answer was lost is replayed, not refused.
    const key = randomKey();
    const button = h('button', { type: 'button', class: 'primary', onclick: () => void this.move(slot, button, key) }, t.reschedule);
    this.main.replaceChildren(
      h('h2', { tabindex: -1 }, this.eventType!.title),
      h('p', {}, t.moveFrom(this.when(this.booking!.startsAt))),
      h('p', {}, t.moveTo(this.when(slot.start))),
      h('div', { class: 'actions' }, h('button', { type: 'button', onclick: () => this.renderDays() }, t.back), button),
    );
    this.root.querySelector<HTMLElement>('h2')?.focus();
  }

  /**
   * POST /bookings/:id/reschedule with the token and `key` as its Idempotency-Key, retried like a booking while its
   * outcome is open (a replay answers the move made): the new booking (and its token) from then on, or the refusal in words.
   */
  private async move(slot: Slot, button: HTMLButtonElement, key: string): Promise<void> {
    const t = this.t;
    const booking = this.booking!;
    button.disabled = true;
    button.textContent = t.moving;
    const result = await untilDecided(() =>
      this.attendee.POST('/v1/bookings/{id}/reschedule', {
        params: { path: { id: booking.id }, header: { 'Idempotency-Key': key } } as never,
        body: { token: this.token, newStartTime: slot.start },
      }),
    );
    if (result?.data) {
      const { previousBookingId, confirmationToken, hostUserId: _host, ...moved } = result.data.booking;
      this.moved = { id: moved.id, token: confirmationToken };
      this.booking = { ...booking, ...moved };
      this.renderManage();
      this.root.querySelector<HTMLElement>('h2')?.focus();
      this.announce(t.rescheduled(this.when(moved.startsAt)));
      const { id: bookingId, startsAt, endsAt, status } = moved;
      return this.dispatch('sched:rescheduled', { bookingId, previousBookingId, startsAt, endsAt, status });
    }
    // No decision after every try: said as a failure; the same button sends the same key again.
    const code = (result?.error as ErrorBody | undefined)?.code;
    if (code === 'SLOT_UNAVAILABLE') return this.showTaken();
    if (code === 'CHANGE_NOT_ALLOWED' || code === 'BOOKING_NOT_ACTIVE' || code === 'BOOKING_IN_PAST') {
      this.renderManage();
      return this.announce(code === 'CHANGE_NOT_ALLOWED' ? t.tooLate : t.notActive);
    }
    button.disabled = false;
    button.textContent = t.reschedule;
    this.announce(code === 'UNAUTHORIZED' ? t.badLink : t.failed);
  }

  private async cancelBooking(button: HTMLButtonElement): Promise<void> {
    const t = this.t;
    const booking = this.booking!;
    button.disabled = true;
    button.textContent = t.cancelling;
    try {
      const { data, error } = await this.attendee.POST('/v1/bookings/{id}/cancel', {
        params: { path: { id: booking.id } },
        body: { token: this.token },
      });
      if (data) {
        this.booking = { ...booking, status: 'cancelled' };
        this.renderManage();
        this.announce(t.cancelled);
        return;
      }
      button.disabled = false;
      button.textContent = t.cancelBooking;
      const code = (error as ErrorBody | undefined)?.code;
      this.announce(
        code === 'CHANGE_NOT_ALLOWED' ? t.tooLate : code === 'BOOKING_NOT_ACTIVE' || code === 'BOOKING_IN_PAST' ? t.notActive : t.failed,
      );
    } catch {
      button.disabled = false;
      button.textContent = t.cancelBooking;
      this.announce(t.failed);
    }
  }

  private dispatch(type: 'sched:held' | 'sched:booked' | 'sched:rescheduled', detail: Record<string, string>): void {
    this.dispatchEvent(new CustomEvent(type, { detail, bubbles: true, composed: true }));
  }
}

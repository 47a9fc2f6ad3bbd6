import { loggedPath } from './logged-path.js';

const TOKEN = 'Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MGFiY2RlZmdoaWpr';
const BOOKING = 'bkg_0123456789abcdefghijABCD';

describe('loggedPath', () => {
  it.each([
    [
      'a calendar feed: the token never',
      `/v1/calendar-feeds/${TOKEN}.ics?x=1`,
      '/v1/calendar-feeds/:file',
      { file: `${TOKEN}.ics` },
      '/v1/calendar-feeds/[redacted]',
    ],
    [
      'an id in the path: kept',
      `/v1/bookings/${BOOKING}/cancel`,
      '/v1/bookings/:id/cancel',
      { id: BOOKING },
      `/v1/bookings/${BOOKING}/cancel`,
    ],
    [
      'a parameter that is not one of our ids',
      '/v1/bookings/not-an-id',
      '/v1/bookings/:id',
      { id: 'not-an-id' },
      '/v1/bookings/[redacted]',
    ],
    ['a query string: dropped', '/invitations/accept?token=secret', '/invitations/accept', {}, '/invitations/accept'],
    [
      'a wildcard: its token-like segments',
      `/admin/assets/${TOKEN}/app.js`,
      '/admin/*',
      { '*': `assets/${TOKEN}/app.js` },
      '/admin/assets/[redacted]/app.js',
    ],
    ['no route: token-like segments', `/v1/calendar-feeds/${TOKEN}/extra?t=1`, undefined, undefined, '/v1/calendar-feeds/[redacted]/extra'],
    ['no route: words and ids stay', `/v1/nothing-here/${BOOKING}`, undefined, undefined, `/v1/nothing-here/${BOOKING}`],
  ])('%s', (_name, url, route, params, expected) => {
    expect(loggedPath({ url, routeOptions: route === undefined ? {} : { url: route }, params })).toBe(expected);
  });
});

import { inlineParameters } from '@app/database';
import { statementWithoutLiterals } from './statement-text.js';

describe('statementWithoutLiterals', () => {
  it.each([
    ['bound parameters stay', 'SELECT * FROM bookings WHERE id = $1 AND organization_id = $2', null],
    ['a string constant', "UPDATE mail_outbox SET status = 'sent' WHERE id = $1", 'UPDATE mail_outbox SET status = ? WHERE id = $1'],
    ['a doubled quote inside a string', "SELECT 'it''s', $1", 'SELECT ?, $1'],
    ['an escape string with a backslashed quote', "SELECT E'a\\'b', 1", 'SELECT ?, ?'],
    ['a dollar-quoted body', 'SELECT $body$ Ada Lovelace $body$, $$x$$', 'SELECT ?, ?'],
    ['numbers, decimals, exponents and underscores', 'SELECT 42, 3.5, .5, 1e-3, 1_000 LIMIT 10', 'SELECT ?, ?, ?, ?, ? LIMIT ?'],
    ['digits inside identifiers and casts stay', 'SELECT c1.id, $1::float8, "col 2" FROM t2 c1', null],
    ['a quoted identifier stays', 'SELECT "it\'s 42" FROM t', null],
    ['comments go', 'SELECT 1 -- ada@example.com\n, /* 555-0100 */ $1', 'SELECT ?  ,   $1'],
    ['keywords and a sign stay', "SELECT NULL, true, -7, interval '5 minutes'", 'SELECT NULL, true, -?, interval ?'],
    ['an unterminated string goes to the end', "SELECT 'Ada", 'SELECT ?'],
  ])('%s', (_name, text, expected) => {
    expect(statementWithoutLiterals(text)).toBe(expected ?? text);
  });

  it('leaves none of the values a message wrote in as literals (TransactionHost.lock; batches did until issue 55)', () => {
    const values = ['Ada Lovelace', 'ada@example.com', new Date('2026-03-02T09:00:00.000Z'), 4242, { note: "zebra's" }, ['x', 'y']];
    const statement = {
      text: `INSERT INTO bookings (attendee_name, attendee_email, start_time, seats, answers, tags) VALUES ($1, $2, $3, $4, $5, $6)`,
      values,
    };
    const batch = ['SET LOCAL log_min_error_statement = panic', inlineParameters(statement), inlineParameters(statement)].join(';\n');
    const traced = statementWithoutLiterals(batch);
    expect(traced).toBe(
      'SET LOCAL log_min_error_statement = panic;\n' +
        [1, 2]
          .map(() => 'INSERT INTO bookings (attendee_name, attendee_email, start_time, seats, answers, tags) VALUES (?, ?, ?, ?, ?, ?)')
          .join(';\n'),
    );
    for (const fragment of ['Lovelace', 'example', '2026', '4242', 'zebra', "'x'"]) expect(traced).not.toContain(fragment);
  });
});

import { Parameters } from './sql-parameters.js';

describe('Parameters', () => {
  it('numbers each placeholder as its value is added, so text and values stay in step', () => {
    const parameters = new Parameters();
    const row = `(${['a', 'b', 'c'].map((value) => parameters.add(value)).join(', ')})`;
    const hosts = parameters.add(['h1', 'h2']);
    expect(`VALUES ${row} ... unnest(${hosts}::text[])`).toBe('VALUES ($1, $2, $3) ... unnest($4::text[])');
    expect(parameters.values).toEqual(['a', 'b', 'c', ['h1', 'h2']]);
  });

  it('lets one placeholder stand twice for one value', () => {
    const parameters = new Parameters();
    const mark = parameters.add(true);
    expect(`SET x = ${mark}, y = ${parameters.add(1)} WHERE x IS DISTINCT FROM ${mark}`).toBe(
      'SET x = $1, y = $2 WHERE x IS DISTINCT FROM $1',
    );
    expect(parameters.values).toEqual([true, 1]);
  });
});

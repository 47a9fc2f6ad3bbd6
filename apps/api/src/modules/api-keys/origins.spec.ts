import { parseOrigin } from './origins.js';

describe('parseOrigin: what a publishable key may list', () => {
  it.each<[string, string | null]>([
    ['https://shop.example.com', 'https://shop.example.com'],
    ['https://shop.example.com:8443', 'https://shop.example.com:8443'],
    ['https://Shop.Example.com', 'https://shop.example.com'],
    ['http://localhost:5173', 'http://localhost:5173'],
    ['http://127.0.0.1', 'http://127.0.0.1'],
    ['http://shop.example.com', null],
    ['https://shop.example.com/', null],
    ['https://shop.example.com/book', null],
    ['https://shop.example.com?x=1', null],
    ['https://user:pw@shop.example.com', null],
    ['https://*.example.com', null],
    ['*', null],
    ['null', null],
    ['shop.example.com', null],
    ['ftp://shop.example.com', null],
    ['https://shop.example.com:443', null],
    ['', null],
  ])('%s → %s', (value, expected) => {
    expect(parseOrigin(value)).toBe(expected);
  });
});

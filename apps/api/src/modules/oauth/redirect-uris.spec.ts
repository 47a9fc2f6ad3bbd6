import { httpsUrlProblem, redirectUriProblem } from './redirect-uris.js';

describe('redirectUriProblem', () => {
  it.each([
    'https://partner.example/callback',
    'https://partner.example/cb?x=1',
    'http://localhost:8080/cb',
    'http://127.0.0.1/cb',
    'http://[::1]:3000/cb',
  ])('accepts %s', (uri) => {
    expect(redirectUriProblem(uri)).toBeNull();
  });

  it.each([
    'http://partner.example/cb',
    'https://partner.example/cb#frag',
    '/relative',
    'ftp://partner.example/',
    'https://user:pw@partner.example/cb',
  ])('refuses %s', (uri) => {
    expect(redirectUriProblem(uri)).not.toBeNull();
  });
});

describe('httpsUrlProblem', () => {
  it('accepts https only', () => {
    expect(httpsUrlProblem('https://partner.example/logo.png')).toBeNull();
    expect(httpsUrlProblem('http://partner.example/logo.png')).not.toBeNull();
    expect(httpsUrlProblem('nonsense')).not.toBeNull();
  });
});

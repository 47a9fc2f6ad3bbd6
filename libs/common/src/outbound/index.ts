// What leaves the service for hosts that customers name (webhook receivers, calendar servers, SMTP): the SSRF guard,
// the DNS answer pinned to what it checked, and the description of a failed send. Shared by webhooks, calendars, mail.
export * from './url-guard.js';
export * from './pinned-lookup.js';
export * from './send-error.js';

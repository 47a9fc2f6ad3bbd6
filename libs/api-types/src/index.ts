// The API's types for its clients (the console, the booker, the partner scenario in test/client), generated from the API's
// own OpenAPI document by scripts/api-types.mjs into schema.ts; test/openapi-client checks that schema.ts is current.
export * from './schema.js';

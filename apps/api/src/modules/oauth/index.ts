// What other modules may use of this one; they import nothing else from its folder (module-boundaries.spec.ts).
export * from './oauth.module.js';
export { OAuthGrantsService } from './oauth-grants.service.js';
export { serveOAuthEndpoints } from './oauth-endpoints.js';

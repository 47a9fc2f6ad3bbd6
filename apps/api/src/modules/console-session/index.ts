// What other modules may use of this one; they import nothing else from its folder (module-boundaries.spec.ts).
export * from './console-session.module.js';
export { withCookie as withConsoleRefreshCookie } from './console-session.controller.js';

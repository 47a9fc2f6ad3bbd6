export * from './scopes.js';
export * from './roles.js';
export * from './access.decorator.js';
export * from './principal.js';
export * from './tenant-scope.js';
export * from './audited.decorator.js';

export * from './error-body.js';
export * from './all-exceptions.filter.js';
export * from './validation.js';
export * from './request-id.js';
export * from './api-errors.decorator.js';
export * from './client-error.js';
export * from './method-not-allowed.js';
export * from './id-param.pipe.js';

// `cookie` is ESM-only; light-my-request require()s it and @fastify/cookie import()s it. Jest turns the package
// into CommonJS (jest.config.cjs) so the require works, which breaks the import of the same file as ESM; both
// now come here, a CommonJS module whose named exports Jest can read either way.
module.exports = require('../../node_modules/cookie/dist/index.js');

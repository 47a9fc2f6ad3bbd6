// See esm-bridge.ts: rewrites require("@nestjs/common" | "@nestjs/core") in CommonJS dependencies.
const BRIDGED = /require\((["'])(@nestjs\/(?:common|core))\1\)/g;

module.exports = {
  process(source) {
    return { code: source.replace(BRIDGED, 'globalThis.__ESM_BRIDGE__["$2"]') };
  },
  getCacheKey(source, path) {
    return require('node:crypto').createHash('sha1').update('esm-bridge-1').update(path).update(source).digest('hex');
  },
};

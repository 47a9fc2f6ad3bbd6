/** The English booker catalog, parsed by the ICU parser at build time (vite.config.ts). */
declare module 'virtual:booker-en' {
  const messages: import('./i18n').Messages;
  export default messages;
}

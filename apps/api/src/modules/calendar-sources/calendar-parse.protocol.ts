/**
 * What a parse thread sends once it has loaded and listens: parse time counts from there, not from the thread's start.
 * Its own file, so the service reads it without loading the thread's module.
 */
export const THREAD_READY = 'ready';

// What occupies a host's time, for every module that needs to know without depending on the bookings module:
// the statuses that occupy, the hosts' advisory lock keys, and the counts event types ask for (a read model of the
// bookings module's tables). It imports no other module, so event-types, availability and bookings all may use it.
export * from './booking-status.js';
export * from './host-locks.js';
export * from './booking-counts.read-model.js';

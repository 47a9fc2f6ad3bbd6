/**
 * One autocannon process posting bookings on distinct free slots. Requests rotate over the given
 * (API key, event type) targets; process `index` of `processes` takes every processes-th 5-minute
 * slot of each target from `firstSlot`, so no two requests ever want the same host and time.
 * With a rate, offers that many requests per second whatever the answers take (autocannon's
 * overallRate). Prints autocannon's result as JSON. Started by bookings.bench.ts.
 */
import autocannon from 'autocannon';

const [url, targetsJson, firstSlot, index, processes, connections, seconds, rate] = process.argv.slice(2);
const targets = JSON.parse(targetsJson) as { apiKey: string; eventTypeId: string }[];
const SLOT_MS = 5 * 60_000;
let sent = 0;

const result = await autocannon({
  url: `${url}/v1/bookings`,
  connections: Number(connections),
  duration: Number(seconds),
  // Requests per second offered by this process (open loop), when given.
  ...(rate ? { overallRate: Number(rate) } : {}),
  requests: [
    {
      method: 'POST',
      setupRequest: (request) => {
        const n = sent++;
        const target = targets[n % targets.length];
        const slot = Date.parse(firstSlot) + (Math.floor(n / targets.length) * Number(processes) + Number(index)) * SLOT_MS;
        return {
          ...request,
          headers: { 'content-type': 'application/json', authorization: `ApiKey ${target.apiKey}` },
          body: JSON.stringify({
            eventTypeId: target.eventTypeId,
            startTime: new Date(slot).toISOString(),
            timezone: 'UTC',
            attendee: { email: `load-${index}-${n}@example.com` },
          }),
        };
      },
    },
  ],
});

process.stdout.write(JSON.stringify(result));

import { readFileSync } from 'node:fs';
import { DOMAIN_EVENT_TYPES } from './domain-event.js';

describe('docs/api-rules.md', () => {
  it('names every webhook event type the service sends', () => {
    const rules = readFileSync(new URL('../../../../../docs/api-rules.md', import.meta.url), 'utf8');
    const list = rules.slice(rules.indexOf('## Webhooks'), rules.indexOf('A payload is'));
    for (const type of DOMAIN_EVENT_TYPES) {
      const [resource, verb] = type.split('.');
      // The list names a resource's first event in full and its others as `.verb`.
      expect(list).toMatch(new RegExp(`\`(${resource})?\\.${verb}\``));
      expect(list).toContain(`\`${resource}.`);
    }
  });
});

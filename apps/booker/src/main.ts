import { SchedBooker } from './booker';

// One definition per page, however many times the script is included.
if (!customElements.get('sched-booker')) customElements.define('sched-booker', SchedBooker);

import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import { type BusyInterval, CalendarParseError, CalendarTooLargeError } from '@app/calendar';
import { AppConfig } from '@app/common';
import { THREAD_READY } from './calendar-parse.protocol.js';
import type { ParseReply, ParseRequest } from './calendar-parse.thread.js';

/** Heap a parse may use: a 5 MiB feed of 100,000 events needs about 200 MB. */
const THREAD_HEAP_MB = 512;
/** Threads stay for this long without work, then end (a process that syncs nothing holds none). */
const IDLE_MS = 30_000;
/** A new thread loads its modules before it parses: on a busy machine that takes seconds, not counted as parsing. */
const STARTUP_MS = 60_000;

interface Task {
  request: Omit<ParseRequest, 'id'>;
  resolve: (busy: BusyInterval[]) => void;
  reject: (error: Error) => void;
}

interface Thread {
  worker: Worker;
  /** Loaded and listening (THREAD_READY arrived). */
  ready: boolean;
  task: (Task & { id: number; timer: NodeJS.Timeout }) | null;
  idle: NodeJS.Timeout | null;
}

/**
 * Parses and expands calendar sources on worker threads, so a big or hostile feed (hundreds of
 * milliseconds of CPU) never stalls the event loop that answers requests. Each parse is bounded in
 * time (CALENDAR_TIMEOUT_MS) and heap; a thread past either is ended and the source reads as too large.
 * From TypeScript sources (tests), threads load the `.ts` entry through ts-node's transpiler.
 */
@Injectable()
export class CalendarParser implements OnModuleDestroy {
  private readonly logger = new Logger('CalendarParser');
  private readonly size = Math.max(1, Math.min(4, availableParallelism() - 1));
  private readonly threads: Thread[] = [];
  private readonly queue: Task[] = [];
  private nextId = 1;
  private closed = false;

  constructor(private readonly config: AppConfig) {}

  /** Sorted busy intervals; rejects with the library's CalendarParseError or CalendarTooLargeError. */
  busy(request: Omit<ParseRequest, 'id'>): Promise<BusyInterval[]> {
    if (this.closed) return Promise.reject(new Error('The calendar parser is closed'));
    return new Promise((resolve, reject) => {
      this.queue.push({ request, resolve, reject });
      this.dispatch();
    });
  }

  async onModuleDestroy(): Promise<void> {
    this.closed = true;
    for (const task of this.queue.splice(0)) task.reject(new Error('The calendar parser is closed'));
    await Promise.all([...this.threads].map((thread) => this.end(thread, new Error('The calendar parser is closed'))));
  }

  private dispatch(): void {
    while (this.queue.length > 0) {
      const thread = this.threads.find((candidate) => candidate.task === null) ?? this.spawn();
      if (!thread) return;
      const task = this.queue.shift()!;
      const id = this.nextId++;
      if (thread.idle) clearTimeout(thread.idle);
      thread.idle = null;
      thread.task = { ...task, id, timer: this.deadline(thread) };
      thread.worker.ref();
      thread.worker.postMessage({ id, ...task.request } satisfies ParseRequest);
    }
  }

  /** The parse's time limit, from now on a ready thread; a thread still loading gets STARTUP_MS first. */
  private deadline(thread: Thread): NodeJS.Timeout {
    if (!thread.ready) return setTimeout(() => void this.end(thread, new Error('The calendar parser thread did not start')), STARTUP_MS);
    return setTimeout(
      () => void this.end(thread, new CalendarTooLargeError(`reading it took longer than ${this.config.calendarTimeoutMs} ms`)),
      this.config.calendarTimeoutMs,
    );
  }

  private spawn(): Thread | null {
    if (this.threads.length >= this.size) return null;
    const typescript = import.meta.url.endsWith('.ts');
    const worker = new Worker(new URL(`./calendar-parse.thread.${typescript ? 'ts' : 'js'}`, import.meta.url), {
      execArgv: typescript ? ['--loader', 'ts-node/esm/transpile-only', '--no-warnings'] : [],
      resourceLimits: { maxOldGenerationSizeMb: THREAD_HEAP_MB },
    });
    const thread: Thread = { worker, ready: false, task: null, idle: null };
    worker.on('message', (reply: ParseReply | typeof THREAD_READY) => {
      if (reply !== THREAD_READY) return this.settle(thread, reply);
      thread.ready = true;
      if (!thread.task) return;
      clearTimeout(thread.task.timer);
      thread.task.timer = this.deadline(thread);
    });
    worker.on('error', (error: Error & { code?: string }) => {
      const reason =
        error.code === 'ERR_WORKER_OUT_OF_MEMORY'
          ? new CalendarTooLargeError(`reading it needs more than ${THREAD_HEAP_MB} MB`)
          : new Error(`The calendar parser thread failed: ${error.message}`);
      if (!(reason instanceof CalendarTooLargeError)) this.logger.error(reason.message);
      void this.end(thread, reason);
    });
    worker.on('exit', () => {
      const index = this.threads.indexOf(thread);
      if (index >= 0) this.threads.splice(index, 1);
      this.failTask(thread, new Error('The calendar parser thread ended'));
      if (!this.closed) this.dispatch();
    });
    this.threads.push(thread);
    return thread;
  }

  private settle(thread: Thread, reply: ParseReply): void {
    const task = thread.task;
    if (!task || task.id !== reply.id) return;
    clearTimeout(task.timer);
    thread.task = null;
    if ('busy' in reply) {
      const busy: BusyInterval[] = new Array(reply.busy.length / 2);
      for (let i = 0; i < busy.length; i++) busy[i] = { start: reply.busy[2 * i], end: reply.busy[2 * i + 1] };
      task.resolve(busy);
    } else {
      task.reject(reply.error === 'parse' ? new CalendarParseError(reply.message) : new CalendarTooLargeError(reply.message));
    }
    thread.worker.unref();
    thread.idle = setTimeout(() => void this.end(thread, null), IDLE_MS).unref();
    this.dispatch();
  }

  private failTask(thread: Thread, error: Error): void {
    const task = thread.task;
    if (!task) return;
    clearTimeout(task.timer);
    thread.task = null;
    task.reject(error);
  }

  /** Ends a thread, failing its task with `error` (a thread that ends idle has none). */
  private async end(thread: Thread, error: Error | null): Promise<void> {
    if (thread.idle) clearTimeout(thread.idle);
    // Out of the pool at once: a dying thread takes no new task.
    const index = this.threads.indexOf(thread);
    if (index >= 0) this.threads.splice(index, 1);
    if (error) this.failTask(thread, error);
    await thread.worker.terminate();
  }
}

import { EventEmitter } from 'node:events';
import { createRequire } from 'node:module';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { InvoicePdfView } from './invoice-pdf-layout.js';

interface Job {
  accountId: number;
  view: InvoicePdfView;
  resolve: (pdf: Buffer) => void;
  reject: (error: Error) => void;
}

const require = createRequire(import.meta.url);
// The compiled build (`npm start`) runs JavaScript: its thread file is plain JavaScript beside this one.
const COMPILED = import.meta.url.endsWith('.js');
const THREAD_FILE = fileURLToPath(new URL(COMPILED ? './pdf-render-thread.js' : './pdf-render-thread.ts', import.meta.url));
// From sources, Node 20 does not apply module hooks (tsx's --import) inside worker threads; tsx's CommonJS
// API compiles the thread's TypeScript there, the same under tsx and under vitest.
function threadFromSources() {
  return `require(${JSON.stringify(require.resolve('tsx/cjs/api'))}).require(${JSON.stringify(THREAD_FILE)}, ${JSON.stringify(THREAD_FILE)});`;
}

/**
 * Renders invoice PDFs on a few worker threads, the queue held per account and served round robin:
 * a burst of one account's PDFs waits behind itself only, and no PDF holds up the event loop.
 * Emits `rendering` (accountId) as a job goes to a thread. Threads are started on first use and
 * do not keep the process alive.
 */
export class PdfRenderPool extends EventEmitter {
  private readonly queues = new Map<number, Job[]>();
  /** Accounts with queued jobs, in the order they are served next. */
  private readonly turns: number[] = [];
  private readonly idle: Worker[] = [];
  private started = 0;

  constructor(private readonly size: number) {
    super();
  }

  render(accountId: number, view: InvoicePdfView): Promise<Buffer> {
    return new Promise<Buffer>((resolve, reject) => {
      let queue = this.queues.get(accountId);
      if (!queue) {
        queue = [];
        this.queues.set(accountId, queue);
        this.turns.push(accountId);
      }
      queue.push({ accountId, view, resolve, reject });
      this.dispatch();
    });
  }

  /** Ends every thread (queued jobs are refused). */
  async close() {
    for (const queue of this.queues.values()) for (const job of queue) job.reject(new Error('PDF rendering stopped'));
    this.queues.clear();
    this.turns.length = 0;
    await Promise.all(this.idle.splice(0).map((worker) => worker.terminate()));
  }

  private dispatch() {
    while (this.turns.length > 0) {
      const worker = this.idle.pop() ?? (this.started < this.size ? this.startWorker() : undefined);
      if (!worker) return;
      const accountId = this.turns.shift();
      const queue = accountId === undefined ? undefined : this.queues.get(accountId);
      const job = queue?.shift();
      if (accountId === undefined || !queue || !job) {
        // an account has a turn only while its queue holds a job; should they ever disagree, drop the turn, keep the thread
        this.idle.push(worker);
        continue;
      }
      if (queue.length > 0) this.turns.push(accountId);
      else this.queues.delete(accountId);
      this.run(worker, job);
    }
  }

  private run(worker: Worker, job: Job) {
    const settle = (answer: { pdf?: Uint8Array; error?: string }) => {
      worker.off('error', crashed);
      if (answer.pdf) job.resolve(Buffer.from(answer.pdf.buffer, answer.pdf.byteOffset, answer.pdf.byteLength));
      else job.reject(new Error(`PDF rendering failed: ${answer.error}`));
      this.idle.push(worker);
      this.dispatch();
    };
    // A thread that dies takes only its own job with it; the next job starts a new thread.
    const crashed = (error: Error) => {
      worker.off('message', settle);
      this.started--;
      void worker.terminate();
      job.reject(new Error(`PDF rendering failed: ${error.message}`));
      this.dispatch();
    };
    worker.once('message', settle);
    worker.once('error', crashed);
    this.emit('rendering', job.accountId);
    worker.postMessage({ view: job.view });
  }

  private startWorker(): Worker {
    const worker = COMPILED ? new Worker(THREAD_FILE) : new Worker(threadFromSources(), { eval: true });
    worker.unref();
    // A job's own listener reports a crash while it renders; an idle thread that ends is just forgotten.
    worker.on('error', () => undefined);
    worker.on('exit', () => {
      const at = this.idle.indexOf(worker);
      if (at >= 0) {
        this.idle.splice(at, 1);
        this.started--;
      }
    });
    this.started++;
    return worker;
  }
}

/** The process's pool: one thread, two on machines with four or more cores (the rest serve requests). */
export const pdfRenderPool = new PdfRenderPool(Math.max(1, Math.min(2, availableParallelism() - 2)));

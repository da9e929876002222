// The main thread's side of the validation worker: one job in the worker at a time, and per
// document only its latest text waiting (a newer version replaces the one waiting). A worker that
// dies (out of memory on a huge text, say) is started again and the work goes on with the next
// job; the server itself stays up.
import { Worker } from 'node:worker_threads';
import type { AnalyseJob, HasherModule, WorkerData, WorkerReply } from './protocol.js';

/** How many documents can be open at once, each with its slot in the shared version array. */
const SLOTS = 1 << 14;

export interface SchedulerEvents {
  reply(r: Exclude<WorkerReply, { type: 'ready' }>): void;
  /** The worker stopped on a job (the job's document and version), or failed to start. */
  failed(error: Error, job: AnalyseJob | undefined): void;
}

export class Scheduler {
  private readonly latest = new Int32Array(new SharedArrayBuffer(SLOTS * 4));
  private readonly freeSlots: number[] = [];
  private nextSlot = 0;
  private readonly waiting = new Map<string, AnalyseJob>();
  private running: AnalyseJob | undefined;
  private worker: Worker | undefined;
  private closed = false;

  constructor(
    private readonly workerUrl: URL,
    private readonly modules: { hasher?: HasherModule; folders?: string },
    private readonly events: SchedulerEvents,
  ) {}

  /** A slot for a newly opened document. */
  openSlot(): number {
    const slot = this.freeSlots.pop() ?? this.nextSlot++;
    if (slot >= SLOTS) throw new Error(`more than ${SLOTS} documents open`);
    Atomics.store(this.latest, slot, -1);
    return slot;
  }

  closeSlot(uri: string, slot: number): void {
    this.waiting.delete(uri);
    Atomics.store(this.latest, slot, -1);
    this.freeSlots.push(slot);
  }

  /** Marks `version` as the document's latest: work on any older one is dropped from now. */
  touch(slot: number, version: number): void {
    Atomics.store(this.latest, slot, version);
  }

  schedule(job: AnalyseJob): void {
    this.touch(job.slot, job.version);
    this.waiting.set(job.uri, job);
    this.next();
  }

  close(): Promise<number> | undefined {
    this.closed = true;
    return this.worker?.terminate();
  }

  private next(): void {
    if (this.running || this.closed) return;
    const [first] = this.waiting.values();
    if (!first) return;
    this.waiting.delete(first.uri);
    this.running = first;
    this.ensureWorker().postMessage(first);
  }

  private ensureWorker(): Worker {
    if (this.worker) return this.worker;
    const { hasher, folders } = this.modules;
    const data: WorkerData = {
      latest: this.latest.buffer,
      ...(hasher ? { hasher } : {}),
      ...(folders ? { folders } : {}),
    };
    const worker = new Worker(this.workerUrl, { workerData: data });
    worker.on('message', (r: WorkerReply) => this.onReply(r));
    worker.on('error', (e) => this.onFailure(worker, e));
    worker.on('exit', (code) => this.onFailure(worker, new Error(`the validation worker exited with code ${code}`)));
    worker.unref();
    this.worker = worker;
    return worker;
  }

  private onReply(r: WorkerReply): void {
    if (r.type === 'ready') return;
    this.events.reply(r);
    if (r.type === 'done' && this.running?.uri === r.uri && this.running.version === r.version) {
      this.running = undefined;
      this.next();
    }
  }

  private onFailure(worker: Worker, error: Error): void {
    if (this.worker !== worker) return; // a worker already given up on
    this.worker = undefined;
    if (this.closed) return;
    const job = this.running;
    this.running = undefined;
    this.events.failed(error, job);
    this.next();
  }
}

import cluster, { type Worker } from 'node:cluster';
import { AggregatorRegistry, type Registry } from 'prom-client';

// GET /metrics with `serve --workers N`: whichever worker a scrape reaches asks the primary, which
// gathers every worker's registry through prom-client's AggregatorRegistry (counters and
// histograms summed, gauges as each says: app/metrics.ts) and answers with the cluster's text.

interface MetricsRequest {
  metricsRequest: number;
}
interface MetricsAnswer {
  metricsAnswer: number;
  text?: string;
  error?: string;
}
const isRequest = (m: unknown): m is MetricsRequest => typeof (m as Partial<MetricsRequest> | null)?.metricsRequest === 'number';
const isAnswer = (m: unknown): m is MetricsAnswer => typeof (m as Partial<MetricsAnswer> | null)?.metricsAnswer === 'number';

/** How long a worker waits for the primary's answer (prom-client's own wait for the workers is 5 s). */
const ANSWER_MS = 10_000;

/**
 * In a worker: lets the primary collect `registry` (prom-client answers its requests once an
 * AggregatorRegistry exists in the process), and returns the function /metrics calls for the
 * cluster's text.
 */
export function workerMetrics(registry: Registry): () => Promise<string> {
  AggregatorRegistry.setRegistries(registry);
  new AggregatorRegistry();
  const waiting = new Map<number, { resolve(text: string): void; reject(e: Error): void }>();
  let next = 0;
  process.on('message', (m) => {
    if (!isAnswer(m)) return;
    const w = waiting.get(m.metricsAnswer);
    waiting.delete(m.metricsAnswer);
    if (m.error !== undefined) w?.reject(new Error(`the cluster's metrics: ${m.error}`));
    else w?.resolve(m.text ?? '');
  });
  return () =>
    new Promise<string>((resolve, reject) => {
      const id = next++;
      const timer = setTimeout(() => {
        waiting.delete(id);
        reject(new Error(`the cluster's metrics: no answer from the primary within ${ANSWER_MS / 1000} s`));
      }, ANSWER_MS);
      waiting.set(id, {
        resolve: (text) => (clearTimeout(timer), resolve(text)),
        reject: (e) => (clearTimeout(timer), reject(e)),
      });
      process.send!({ metricsRequest: id } satisfies MetricsRequest);
    });
}

/** In the primary: answers each worker's request for the cluster's metrics. Call before forking. */
export function primaryMetrics(): void {
  const aggregator = new AggregatorRegistry();
  cluster.on('message', (worker: Worker, m: unknown) => {
    if (!isRequest(m)) return;
    aggregator.clusterMetrics().then(
      (text) => worker.isConnected() && worker.send({ metricsAnswer: m.metricsRequest, text } satisfies MetricsAnswer),
      (e: Error) => worker.isConnected() && worker.send({ metricsAnswer: m.metricsRequest, error: e.message } satisfies MetricsAnswer),
    );
  });
}

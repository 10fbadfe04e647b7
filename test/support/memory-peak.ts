// The most memory answers took while some work ran: the process's ArrayBuffer memory (where the bytes of an HTTP
// answer live) sampled every 2 ms, as the peak above where it started.

export async function peakArrayBuffers<T>(work: () => Promise<T>): Promise<{ result: PromiseSettledResult<T>; peak: number }> {
  const start = process.memoryUsage().arrayBuffers;
  let peak = 0;
  const sample = () => (peak = Math.max(peak, process.memoryUsage().arrayBuffers - start));
  const timer = setInterval(sample, 2);
  const [result] = await Promise.allSettled([work()]);
  clearInterval(timer);
  sample();
  return { result, peak };
}

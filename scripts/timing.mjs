// Timing helpers shared by the bench (scripts/bench.mjs) and the A/B of two
// builds (scripts/ab.mjs).

export const now = () => Number(process.hrtime.bigint()) / 1e6; // ms

/** Times several functions in round robin (each round calls every one, in a
 *  rotating order) so all of them see the same machine load; returns the
 *  median ms of each and, per function, the median of its per-round ratio to
 *  function 0 (the floor). On a shared, busy machine the ratios are far
 *  steadier than ratios of separately taken medians. */
export function roundRobin(fns, budgetMs, minRounds = 9) {
  const warmEnd = now() + budgetMs / 5;
  for (let i = 0; i < 2 || (now() < warmEnd && i < 1000); i++) for (const f of fns) f();
  const samples = fns.map(() => []);
  const end = now() + budgetMs * fns.length;
  for (let round = 0; round < minRounds || (now() < end && round < 20000); round++) {
    for (let k = 0; k < fns.length; k++) {
      const i = (k + round) % fns.length;
      const t = now();
      fns[i]();
      samples[i].push(now() - t);
    }
  }
  const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
  return {
    ms: samples.map(median),
    ratio: samples.map((xs) => median(xs.map((x, r) => x / samples[0][r]))),
  };
}

export const fmtMs = (ms) => (ms >= 1 ? `${ms.toFixed(2)} ms` : `${(ms * 1000).toFixed(1)} us`);

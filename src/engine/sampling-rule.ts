/**
 * The engine's rule choosing how Monte Carlo samples (engine/core/src/estimate.rs, `uses_loadings`):
 * through the window's n×m loadings when it has no more returns m than assets n (Σ singular), else
 * through the Cholesky factor of Σ. The service plans costs with it before the engine runs;
 * test/engine/sampling-rule.test.ts checks it against the engine on both sides of the boundary.
 */
export function samplesThroughLoadings(returns: number, assets: number): boolean {
  return returns <= assets;
}

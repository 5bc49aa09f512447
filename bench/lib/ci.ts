/** CI (`CI=true` or `CI=1`): a benchmark that cannot run for want of NumPy, Redis or PostgreSQL fails instead of skipping. */
export function inCi(): boolean {
  return process.env.CI === 'true' || process.env.CI === '1';
}

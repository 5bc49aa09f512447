import { ABI } from './abi.js';
import { type Engine } from './ops.js';

// The load-time handshake: an engine's reported constants against the binding's (abi.ts).

/** What OP_ABI reports besides the constants above. */
const REPORTED_ONLY = new Set(['VERSION_MAJOR', 'VERSION_MINOR', 'VERSION_PATCH']);

export class AbiMismatchError extends Error {}

/** The constants an engine reports: [0, count, (name length, name bytes…, value) × count]. */
export function reportedConstants(engine: Pick<Engine, 'call'>): Map<string, number> {
  const out = engine.call(ABI.OP_ABI, new Float64Array(0));
  if (out[0] !== 0) throw new AbiMismatchError('the engine does not answer OP_ABI: it predates this binding');
  const constants = new Map<string, number>();
  let at = 2;
  for (let i = 0; i < (out[1] ?? 0); i++) {
    const len = out[at++]!;
    const name = String.fromCharCode(...out.subarray(at, at + len));
    at += len;
    constants.set(name, out[at++]!);
  }
  return constants;
}

/** Checks that the engine's constants are this binding's; returns the engine's version. */
export function readAbi(engine: Pick<Engine, 'call'>): { version: string } {
  const reported = reportedConstants(engine);
  const ours = new Map<string, number>(Object.entries(ABI));
  const problems: string[] = [];
  for (const [name, value] of ours) {
    if (reported.get(name) !== value) problems.push(`${name}: binding ${value}, engine ${reported.get(name) ?? 'missing'}`);
  }
  for (const name of reported.keys()) if (!ours.has(name) && !REPORTED_ONLY.has(name)) problems.push(`${name}: unknown to the binding`);
  if (problems.length > 0) throw new AbiMismatchError(`engine ABI differs from the binding: ${problems.join('; ')}`);
  return { version: ['VERSION_MAJOR', 'VERSION_MINOR', 'VERSION_PATCH'].map((k) => reported.get(k)).join('.') };
}

// The service's diagnostics channels (node:diagnostics_channel): what an APM agent or a benchmark in
// the same process subscribes to for the server's own view of each answer's latency. Nothing is
// published while no one subscribes.
import diagnostics_channel from 'node:diagnostics_channel';

/** An HTTP answer written: its route template, status and milliseconds from the request's arrival. */
export interface HttpAnswered {
  route: string;
  method: string;
  status: number;
  ms: number;
}

/** A live `risk` message handed to its socket: milliseconds from the arrival of the first input it
 * includes (seq 0: from the subscription's first computation's start). */
export interface LiveRiskSent {
  id: string;
  seq: number;
  ms: number;
}

export const HTTP_ANSWERED = 'risk-service:http-answered';
export const LIVE_RISK_SENT = 'risk-service:live-risk-sent';

const httpAnswered = diagnostics_channel.channel(HTTP_ANSWERED);
const liveRiskSent = diagnostics_channel.channel(LIVE_RISK_SENT);

export function publishHttpAnswered(answered: HttpAnswered): void {
  if (httpAnswered.hasSubscribers) httpAnswered.publish(answered);
}

export function publishLiveRiskSent(sent: LiveRiskSent): void {
  if (liveRiskSent.hasSubscribers) liveRiskSent.publish(sent);
}

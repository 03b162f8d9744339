/**
 * The targets of the token endpoint against its stored peer and of the cost of a round
 * trip to DynamoDB (docs/performance.md, "Token endpoint and its peers" and "Cost of a
 * round trip"), computed from one run: the full one, or a partial one (`--only me,token`).
 */
import type { Scenario } from './oauth';
import { fixed } from './report';

export const PEER = 'peer: oidc-provider client_credentials';
export const STORED_PEER = 'peer: oidc-provider client_credentials, client in DynamoDB';

const measured = (scenario: Scenario | undefined) => (scenario && !('skipped' in scenario) ? scenario : undefined);
const cpuOf = (run: { cpu: { serverMsPerRequest?: number | undefined } }) => run.cpu.serverMsPerRequest ?? Number.NaN;

/** `pass` is undefined when a figure was not measured in this run. */
export interface TokenTarget {
  target: string;
  figure: string;
  pass: boolean | undefined;
}

/** Server CPU ms per request of `name` at most `limit`. */
function cpuAtMost(name: string, scenario: Scenario | undefined, limit: number): TokenTarget {
  const run = measured(scenario);
  const target = `${name} ≤ ${fixed(limit, 2)} server CPU ms/request`;
  return run
    ? { target, figure: `${fixed(cpuOf(run), 3)} ms`, pass: cpuOf(run) <= limit }
    : { target, figure: 'not measured', pass: undefined };
}

export function tokenTargets(scenarios: Record<string, Scenario | undefined>): TokenTarget[] {
  const ours = measured(scenarios['token (client_credentials)']);
  const peer = measured(scenarios[STORED_PEER]);
  const both = ours && peer ? { ours, peer } : undefined;
  const rate = both && both.ours.requestsPerSecond / both.peer.requestsPerSecond;
  const cpu = both && cpuOf(both.ours) / cpuOf(both.peer);
  return [
    {
      target: 'token (client_credentials) ≥ 1.5× req/s of oidc-provider with its client in DynamoDB',
      figure: rate === undefined ? 'not measured' : `${fixed(rate, 2)}×`,
      pass: rate === undefined ? undefined : rate >= 1.5,
    },
    {
      target: 'token (client_credentials) ≤ 0.7× server CPU ms/request of oidc-provider with its client in DynamoDB',
      figure:
        cpu === undefined || !both
          ? 'not measured'
          : `${fixed(cpuOf(both.ours), 3)} / ${fixed(cpuOf(both.peer), 3)} ms = ${fixed(cpu, 2)}×`,
      pass: cpu === undefined ? undefined : cpu <= 0.7,
    },
    cpuAtMost('me', scenarios.me, 0.3),
    cpuAtMost('token (client_credentials)', scenarios['token (client_credentials)'], 0.35),
  ];
}

/**
 * Stand-in for the coordinator's `FederationRefused` (lib/federation/complete.ts) until
 * it lands: a protocol check of the identity provider's answer failed.
 */
export class FederationRefused extends Error {
  constructor(readonly reason: string) {
    super(`Federation refused: ${reason}`);
    this.name = 'FederationRefused';
  }
}
